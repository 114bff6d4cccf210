/** Calendar tools (upstream `CalendarTool`): read, search, create, delete and update events. */
import {
  pythonContains,
  PythonError,
  pythonInt,
  pythonLower,
  pythonTruthy,
  type PythonValue,
} from 'ngym/python-compat';
import type { Office } from '../database/office.ts';
import { nextId, paginate, zfill } from './pandas.ts';
import { pythonSearch } from './python-regex.ts';
import { deleteRecord, type RecordKind, recordField, updateRecord } from './records.ts';
import { compareTimestamps, parseTimestamp, type Timestamp, timestampOrder } from './timestamp.ts';
import { type Arguments, type OfficeTool, officeTool } from './tool.ts';

const EVENTS: RecordKind = { table: 'calendarEvents', idColumn: 'event_id', noun: 'Event' };
const eventId = { type: 'string', description: '8-digit ID of the event' } as const;
const READABLE_FIELDS = ['event_id', 'event_name', 'participant_email', 'event_start', 'duration'];
const UPDATABLE_FIELDS = ['event_name', 'participant_email', 'event_start', 'duration'];
const INVALID_START = 'Invalid event_start format. Expected YYYY-MM-DD HH:MM:SS.';

function isEventId(value: PythonValue): boolean {
  return typeof value === 'string' && /^\p{Nd}{8}$/u.test(value);
}

/** `pd.Timestamp(value)` where only a ValueError is caught (a TypeError reaches the caller). */
function parsesAsTimestamp(value: PythonValue): boolean {
  try {
    parseTimestamp(value);
    return true;
  } catch (error) {
    if (error instanceof PythonError && error.type !== 'TypeError') return false;
    throw error;
  }
}

/** `int(duration) > 0`, or upstream's message for why not (a TypeError is not caught upstream either). */
function durationProblem(value: PythonValue): string | undefined {
  let minutes: number;
  try {
    minutes = pythonInt(value);
  } catch (error) {
    if (error instanceof PythonError && error.type === 'ValueError') return 'Invalid duration format. Expected a number of minutes.';
    throw error;
  }
  return minutes <= 0 ? 'Duration must be a positive number of minutes.' : undefined;
}

function searchEvents(office: Office, args: Arguments<'query' | 'time_min' | 'time_max' | 'page' | 'page_size'>): PythonValue {
  const bounds: [Timestamp | undefined, Timestamp | undefined] = [undefined, undefined];
  for (const [index, name] of (['time_min', 'time_max'] as const).entries()) {
    if (!pythonTruthy(args[name])) continue;
    try {
      bounds[index] = parseTimestamp(args[name]);
    } catch (error) {
      if (error instanceof PythonError && error.type !== 'TypeError') return `Invalid ${name} format. Expected YYYY-MM-DD HH:MM:SS.`;
      throw error;
    }
  }
  const table = office.calendarEvents;
  const search = pythonSearch(args.query);
  const [name, email, start] = ['event_name', 'participant_email', 'event_start'].map((column) => table.columnIndex(column)) as [number, number, number];
  const matches = (cell: unknown) => typeof cell === 'string' && search(cell);
  let events = table.rows.filter((row) => matches(row[name]) || matches(row[email])).map((row) => ({ row, start: parseTimestamp(row[start]) }));
  const [timeMin, timeMax] = bounds;
  if (timeMin !== undefined) events = events.filter((event) => compareTimestamps(event.start, '>=', timeMin));
  if (timeMax !== undefined) events = events.filter((event) => compareTimestamps(event.start, '<=', timeMax));
  if (events.length === 0) return 'No events found.';
  // Latest first; Python's sort is stable, so equal starts keep table order.
  events.sort((a, b) => timestampOrder(a.start, b.start));
  const page = paginate(
    events.map((event) => table.record(event.row)),
    args.page,
    args.page_size,
  );
  return page.answer('events');
}

export const calendarTools: OfficeTool[] = [
  officeTool({
    name: 'calendar_get_event_information_by_id',
    pythonMethod: 'CalendarTool.get_event_information_by_id',
    description: 'Returns the event for a given ID.',
    parameters: {
      event_id: eventId,
      field: {
        type: 'string',
        description: "Field to return. Available fields are: 'event_id', 'event_name', 'participant_email', 'event_start', 'duration'",
      },
    },
    required: ['event_id', 'field'],
    run: ({ event_id, field }, office) => {
      if (!pythonTruthy(event_id)) return 'Event ID not provided.';
      if (!pythonTruthy(field)) return 'Field not provided.';
      if (!isEventId(event_id)) return 'Invalid event ID format. Expected 8-digit ID.';
      if (!pythonContains(READABLE_FIELDS, field)) return `Invalid field. Available fields are: ${READABLE_FIELDS.join(', ')}`;
      return recordField(office, EVENTS, event_id, field, () => 'Field not found.');
    },
  }),
  officeTool({
    name: 'calendar_search_events',
    pythonMethod: 'CalendarTool.search_events',
    description: 'Returns the events for a given query with pagination support.',
    parameters: {
      query: { type: 'string', description: 'Query to search for. Terms will be matched in the event_name and participant_email fields', default: '' },
      time_min: { type: 'string', description: "Lower bound (inclusive) for an event's end time to filter by. Format: YYYY-MM-DD HH:MM:SS" },
      time_max: { type: 'string', description: "Upper bound (inclusive) for an event's start time to filter by. Format: YYYY-MM-DD HH:MM:SS" },
      page: { type: 'integer', description: 'Page number of results to return', default: 1 },
      page_size: { type: 'integer', description: 'Number of events per page', default: 5 },
    },
    required: [],
    run: (args, office) => searchEvents(office, args),
  }),
  officeTool({
    name: 'calendar_create_event',
    pythonMethod: 'CalendarTool.create_event',
    description: 'Creates a new event.',
    parameters: {
      event_name: { type: 'string', description: 'Name of the event' },
      participant_email: { type: 'string', description: 'Email of the participant' },
      event_start: { type: 'string', description: 'Start time of the event. Format: YYYY-MM-DD HH:MM:SS' },
      duration: { type: 'string', description: 'Duration of the event in minutes' },
    },
    required: ['event_name', 'participant_email', 'event_start', 'duration'],
    run: ({ event_name, participant_email, event_start, duration }, office) => {
      if (!pythonTruthy(event_name)) return 'Event name not provided.';
      if (!pythonTruthy(participant_email)) return 'Participant email not provided.';
      if (!pythonTruthy(event_start)) return 'Event start not provided.';
      if (!pythonTruthy(duration)) return 'Event duration not provided.';
      if (!parsesAsTimestamp(event_start)) return INVALID_START;
      const problem = durationProblem(duration);
      if (problem !== undefined) return problem;
      const email = pythonLower(participant_email);
      const id = zfill(nextId(office.calendarEvents, 'event_id'));
      // Plain concat: the new row keeps its own label 0. Values are stored as sent (an int duration stays an int).
      office.calendarEvents = office.calendarEvents.appendLabelled(
        { event_id: id, event_name: event_name, participant_email: email, event_start: event_start, duration: duration },
        0,
      );
      return id;
    },
  }),
  officeTool({
    name: 'calendar_delete_event',
    pythonMethod: 'CalendarTool.delete_event',
    description: 'Deletes an event.',
    parameters: { event_id: eventId },
    required: ['event_id'],
    run: ({ event_id }, office) => {
      if (!pythonTruthy(event_id)) return 'Event ID not provided.';
      if (!isEventId(event_id)) return 'Invalid event ID format. Expected 8-digit ID.';
      return deleteRecord(office, EVENTS, event_id);
    },
  }),
  officeTool({
    name: 'calendar_update_event',
    pythonMethod: 'CalendarTool.update_event',
    description: 'Updates an event.',
    parameters: {
      event_id: eventId,
      field: { type: 'string', description: "Field to update. Available fields are: 'event_name', 'participant_email', 'event_start', 'duration'" },
      new_value: { type: 'string', description: 'New value for the field' },
    },
    required: ['event_id', 'field', 'new_value'],
    run: ({ event_id, field, new_value }, office) => {
      if (!pythonTruthy(event_id) || !pythonTruthy(field) || !pythonTruthy(new_value)) return 'Event ID, field, or new value not provided.';
      if (!isEventId(event_id)) return 'Invalid event ID format. Expected 8-digit ID.';
      if (!pythonContains(UPDATABLE_FIELDS, field)) return `Invalid field. Available fields are: ${UPDATABLE_FIELDS.join(', ')}`;
      if (field === 'event_start' && !parsesAsTimestamp(new_value)) return INVALID_START;
      if (field === 'duration') {
        const problem = durationProblem(new_value);
        if (problem !== undefined) return problem;
      }
      const value = field === 'participant_email' ? pythonLower(new_value) : new_value;
      return updateRecord(office, EVENTS, event_id, field, value, `Invalid field. Available fields are: ${UPDATABLE_FIELDS.join(', ')}`);
    },
  }),
];
