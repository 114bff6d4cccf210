/** Website analytics tools (upstream `AnalyticsTool`): visitor lookup, plots, and per-day counts and means. */
import {
  comparePythonStrings,
  pyFloat,
  pythonCompare,
  pythonContains,
  PythonError,
  pythonNumber,
  pythonRepr,
  pythonStr,
  pythonStrip,
  pythonTruthy,
  pythonTypeName,
  type PythonValue,
} from 'ngym/python-compat';
import type { Office } from '../database/office.ts';
import type { Cell, Row } from '../database/table.ts';
import { cellEquals } from './pandas.ts';
import { type Arguments, type OfficeTool, officeTool } from './tool.ts';

const PLOT_VALUES = ['total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'];
const PLOT_TYPES = ['bar', 'line', 'scatter', 'histogram'];

const timeMin = { type: 'string', description: 'Start date of the time range. Date format is YYYY-MM-DD' } as const;
const timeMax = { type: 'string', description: 'End date of the time range. Date format is YYYY-MM-DD' } as const;
const timeRange = { time_min: timeMin, time_max: timeMax };

const PYTHON_FLOAT = /^[+-]?(?:(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?|inf(?:inity)?|nan)$/i;

/** Python's `float(value)` (what `astype(float)` does to each cell); NaN cells stay NaN. */
function pythonFloat(cell: Cell): number {
  if (cell === null) return NaN;
  const number = pythonNumber(cell);
  if (number !== undefined) return number;
  if (typeof cell !== 'string') throw new PythonError('TypeError', `float() argument must be a string or a real number, not '${pythonTypeName(cell)}'`);
  const text = pythonStrip(cell);
  if (!PYTHON_FLOAT.test(text)) throw new PythonError('ValueError', `could not convert string to float: ${pythonRepr(cell)}`);
  const lower = text.toLowerCase().replaceAll('_', '');
  if (lower.endsWith('nan')) return NaN;
  if (lower.endsWith('inf') || lower.endsWith('infinity')) return lower.startsWith('-') ? -Infinity : Infinity;
  return Number(lower);
}

/** The visits in `[time_min, time_max]`, compared as strings as upstream does (`date_of_visit >= time_min`). */
function visitsBetween(office: Office, args: Arguments<'time_min' | 'time_max'>): Row[] {
  const date = office.analytics.columnIndex('date_of_visit');
  let rows = office.analytics.rows;
  const within = (bound: PythonValue, operator: '>=' | '<=') => (row: Row) => row[date] !== null && pythonCompare(row[date], operator, bound);
  if (pythonTruthy(args.time_min)) rows = rows.filter(within(args.time_min, '>='));
  if (pythonTruthy(args.time_max)) rows = rows.filter(within(args.time_max, '<='));
  return rows as Row[];
}

/** `groupby("date_of_visit")` then a per-group value, keyed by date in sorted order. */
function perDate(office: Office, rows: Row[], value: (group: Row[]) => PythonValue): Record<string, PythonValue> {
  const date = office.analytics.columnIndex('date_of_visit');
  const groups = new Map<string, Row[]>();
  for (const row of rows) {
    const key = row[date];
    if (key === null) continue;
    const group = groups.get(pythonStr(key)) ?? [];
    group.push(row);
    groups.set(pythonStr(key), group);
  }
  const result: Record<string, PythonValue> = {};
  for (const key of [...groups.keys()].sort(comparePythonStrings)) result[key] = value(groups.get(key) as Row[]);
  return result;
}

function countWhere(office: Office, args: Arguments<'time_min' | 'time_max'>, counts: (row: Row) => boolean): Record<string, PythonValue> {
  return perDate(office, visitsBetween(office, args), (group) => group.filter(counts).length);
}

function averageSessionDuration(office: Office, args: Arguments<'time_min' | 'time_max'>): PythonValue {
  const rows = visitsBetween(office, args);
  const seconds = office.analytics.columnIndex('session_duration_seconds');
  const values = new Map(rows.map((row) => [row, pythonFloat(row[seconds] as Cell)]));
  // Without any bound upstream converts the table's column itself, which later outputs show.
  if (!pythonTruthy(args.time_min) && !pythonTruthy(args.time_max)) office.sessionDurationsAreFloats = true;
  return perDate(office, rows, (group) => {
    const present = group.map((row) => values.get(row) as number).filter((value) => !Number.isNaN(value));
    return pyFloat(present.length === 0 ? NaN : present.reduce((sum, value) => sum + value, 0) / present.length);
  });
}

/** A visit row as upstream returns it (`session_duration_seconds` as float once converted). */
function visitRecord(office: Office, row: Row): Record<string, PythonValue> {
  const record = office.analytics.record(row);
  if (office.sessionDurationsAreFloats) record.session_duration_seconds = pyFloat(pythonFloat(record.session_duration_seconds as Cell));
  return record;
}

export const analyticsTools: OfficeTool[] = [
  officeTool({
    name: 'analytics_get_visitor_information_by_id',
    pythonMethod: 'AnalyticsTool.get_visitor_information_by_id',
    description: 'Returns the analytics data for a given visitor ID.',
    parameters: { visitor_id: { type: 'string', description: 'ID of the visitor' } },
    required: ['visitor_id'],
    run: ({ visitor_id }, office) => {
      if (!pythonTruthy(visitor_id)) return 'Visitor ID not provided.';
      const visits = office.analytics.rows.filter(cellEquals(office.analytics, 'visitor_id', visitor_id));
      return visits.length > 0 ? visits.map((row) => visitRecord(office, row)) : 'Visitor not found.';
    },
  }),
  officeTool({
    name: 'analytics_create_plot',
    pythonMethod: 'AnalyticsTool.create_plot',
    description: 'Plots the analytics data for a given time range and value.',
    parameters: {
      ...timeRange,
      value_to_plot: {
        type: 'string',
        description:
          "Value to plot. Available values are: 'total_visits', 'session_duration_seconds', 'user_engaged', 'visits_direct', 'visits_referral', 'visits_search_engine', 'visits_social_media'",
      },
      plot_type: { type: 'string', description: "Type of plot. Can be 'bar', 'line', 'scatter' or 'histogram'" },
    },
    required: ['time_min', 'time_max', 'value_to_plot', 'plot_type'],
    run: ({ time_min, time_max, value_to_plot, plot_type }, office) => {
      if (!pythonTruthy(time_min)) return 'Start date not provided.';
      if (!pythonTruthy(time_max)) return 'End date not provided.';
      if (!pythonContains(PLOT_VALUES, value_to_plot)) {
        return `Value to plot must be one of ${PLOT_VALUES.map((value) => `'${value}'`).join(', ')}`;
      }
      if (!pythonContains(PLOT_TYPES, plot_type)) return "Plot type must be one of 'bar', 'line', 'scatter', or 'histogram'";
      const path = `plots/${pythonStr(time_min)}_${pythonStr(time_max)}_${pythonStr(value_to_plot)}_${pythonStr(plot_type)}.png`;
      // `_plots_data.loc[len(_plots_data)] = [file_path]`
      office.plots = office.plots.appendLabelled({ file_path: path }, office.plots.length);
      return path;
    },
  }),
  officeTool({
    name: 'analytics_total_visits_count',
    pythonMethod: 'AnalyticsTool.total_visits_count',
    description: 'Returns the total number of visits within a specified time range.',
    parameters: timeRange,
    required: [],
    run: (args, office) => countWhere(office, args, () => true),
  }),
  officeTool({
    name: 'analytics_engaged_users_count',
    pythonMethod: 'AnalyticsTool.engaged_users_count',
    description: 'Returns the number of engaged users within a specified time range.',
    parameters: timeRange,
    required: [],
    run: (args, office) => {
      const engaged = office.analytics.columnIndex('user_engaged');
      return countWhere(office, args, (row) => pythonTruthy(row[engaged] === null ? pyFloat(NaN) : row[engaged]));
    },
  }),
  officeTool({
    name: 'analytics_traffic_source_count',
    pythonMethod: 'AnalyticsTool.traffic_source_count',
    description: 'Returns the number of visits from a specific traffic source within a specified time range.',
    parameters: {
      ...timeRange,
      traffic_source: {
        type: 'string',
        description: "Traffic source to filter the visits. Available values are: 'direct', 'referral', 'search engine', 'social media'",
      },
    },
    required: [],
    run: (args, office) => {
      if (!pythonTruthy(args.traffic_source)) return countWhere(office, args, () => true);
      return countWhere(office, args, cellEquals(office.analytics, 'traffic_source', args.traffic_source));
    },
  }),
  officeTool({
    name: 'analytics_get_average_session_duration',
    pythonMethod: 'AnalyticsTool.get_average_session_duration',
    description: 'Returns the average session duration within a specified time range.',
    parameters: timeRange,
    required: [],
    run: (args, office) => averageSessionDuration(office, args),
  }),
];
