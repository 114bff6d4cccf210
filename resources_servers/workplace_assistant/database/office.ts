/**
 * The simulated company's database: five tables loaded from CSV (upstream's file names), the analytics
 * plots table (starts empty) and the company directory. A session's `Office` is a shallow copy of the
 * loaded database; tools replace table references in it, so sessions never share a change.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NgymError } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { isPandasNaMarker, parseCsvRecords, readPandasCsv } from './csv.ts';
import { type Cell, Table } from './table.ts';

export interface OfficeDatabase {
  readonly emails: Table;
  readonly calendarEvents: Table;
  readonly analytics: Table;
  /** analytics `_plots_data`: one column `file_path`. */
  readonly plots: Table;
  readonly projectTasks: Table;
  readonly customers: Table;
  /** The company directory's email addresses (`email_addresses.csv`, no header). */
  readonly directory: readonly Cell[];
  /**
   * Set once `analytics_get_average_session_duration` ran without a time range: upstream then converts the
   * analytics table's `session_duration_seconds` to float in place, which later tool outputs show (`4.0`).
   * A flag instead of a converted copy of the table keeps that session cheap.
   */
  readonly sessionDurationsAreFloats: boolean;
}

/** One rollout's database: starts as the loaded one, changed by replacing tables. */
export type Office = { -readonly [Key in keyof OfficeDatabase]: OfficeDatabase[Key] };

export function freshOffice(database: OfficeDatabase): Office {
  return { ...database };
}

/** The tables verify compares, under upstream's names. */
export const COMPARED_TABLES = ['calendarEvents', 'emails', 'plots', 'projectTasks', 'customers'] as const;

export const TABLE_FILES = {
  emails: { file: 'emails.csv', columns: ['email_id', 'inbox/outbox', 'sender/recipient', 'subject', 'sent_datetime', 'body'] },
  calendarEvents: { file: 'calendar_events.csv', columns: ['event_id', 'event_name', 'participant_email', 'event_start', 'duration'] },
  analytics: {
    file: 'analytics_data.csv',
    columns: ['date_of_visit', 'visitor_id', 'page_views', 'session_duration_seconds', 'traffic_source', 'user_engaged'],
  },
  projectTasks: { file: 'project_tasks.csv', columns: ['task_id', 'task_name', 'assigned_to_email', 'list_name', 'due_date', 'board'] },
  customers: {
    file: 'customer_relationship_manager_data.csv',
    columns: [
      'customer_id', 'assigned_to_email', 'customer_name', 'customer_email', 'customer_phone', 'last_contact_date', 'product_interest',
      'status', 'follow_up_by', 'notes',
    ],
  },
} as const;

export const DIRECTORY_FILE = 'email_addresses.csv';

/** The synthetic database shipped with the environment (written by `database/generate.ts`). */
export const BUNDLED_DATABASE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'csv_data');

/** A configured directory: absolute, else relative to the working directory, else to the ngym package. */
export function resolveDatabaseDir(configured: string | null | undefined): string {
  if (configured === null || configured === undefined || configured === '') return BUNDLED_DATABASE_DIR;
  const fromCwd = resolve(configured);
  if (existsSync(fromCwd)) return fromCwd;
  const fromPackage = resolve(PACKAGE_ROOT, configured);
  if (existsSync(fromPackage)) return fromPackage;
  throw new NgymError('NGYM_CONFIG_INVALID', `database_dirpath '${configured}' does not exist (looked at ${fromCwd} and ${fromPackage}).`);
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new NgymError('NGYM_CONFIG_INVALID', `Cannot read the office database file ${path}: ${(error as Error).message}`);
  }
}

function loadTable(directory: string, spec: { file: string; columns: readonly string[] }): Table {
  const path = join(directory, spec.file);
  const { columns, rows } = readPandasCsv(readText(path), path);
  const missing = spec.columns.filter((column) => !columns.includes(column));
  if (missing.length > 0) throw new NgymError('NGYM_CONFIG_INVALID', `${path}: missing column(s) ${missing.join(', ')} (has ${columns.join(', ')}).`);
  return Table.fromRows(columns, rows);
}

/** `email_addresses.csv` beside the tables, or in `../raw/` as in upstream's `csv_data/` layout. */
function directoryPath(directory: string): string {
  const candidates = [join(directory, DIRECTORY_FILE), join(directory, '..', 'raw', DIRECTORY_FILE)];
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined) throw new NgymError('NGYM_CONFIG_INVALID', `No company directory file: looked for ${candidates.join(' and ')}.`);
  return found;
}

export function loadOfficeDatabase(directory: string): OfficeDatabase {
  const analytics = loadTable(directory, TABLE_FILES.analytics);
  const directoryFile = directoryPath(directory);
  return {
    emails: loadTable(directory, TABLE_FILES.emails),
    calendarEvents: loadTable(directory, TABLE_FILES.calendarEvents),
    // Upstream converts this one column to bool on load: `== "True"`.
    analytics: analytics.mapColumn('user_engaged', (cell) => cell === 'True'),
    plots: Table.fromRows(['file_path'], []),
    projectTasks: loadTable(directory, TABLE_FILES.projectTasks),
    customers: loadTable(directory, TABLE_FILES.customers),
    sessionDurationsAreFloats: false,
    directory: parseCsvRecords(readText(directoryFile), directoryFile).map(([address]) => (address === undefined || isPandasNaMarker(address) ? null : address)),
  };
}
