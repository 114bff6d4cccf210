/**
 * The by-ID record operations every tool class repeats (get a field, update a field, delete), each with the
 * messages upstream returns: `<Noun> not found.`, `<Noun> updated successfully.`, `<Noun> deleted successfully.`.
 */
import { pythonContains, type PythonValue } from 'ngym/python-compat';
import type { Office } from '../database/office.ts';
import { cellEquals, columnContains, findRow, isColumn, withoutRows } from './pandas.ts';

/** A table of the office whose rows a tool class addresses by an ID column. */
export interface RecordKind {
  table: 'emails' | 'calendarEvents' | 'projectTasks' | 'customers';
  idColumn: string;
  /** Capitalized, as the messages start with it ("Event", "Task"). */
  noun: string;
}

/** `{field: record[field]}` when `field in record` (Python's `in`, so an unhashable field raises), else undefined. */
function pickField(record: Record<string, PythonValue>, field: PythonValue): Record<string, PythonValue> | undefined {
  if (!pythonContains(record, field) || typeof field !== 'string') return undefined;
  const value = record[field];
  return value === undefined ? undefined : { [field]: value };
}

/** The record with this ID as upstream's `to_dict("records")[0]` gives it, or undefined. */
export function findRecord(office: Office, kind: RecordKind, id: PythonValue): Record<string, PythonValue> | undefined {
  const table = office[kind.table];
  const row = findRow(table, kind.idColumn, id);
  return row === undefined ? undefined : table.record(row);
}

/** `<field>` of the record with this ID: `{field: value}`, "<Noun> not found.", or `missingField(record)`. */
export function recordField(office: Office, kind: RecordKind, id: PythonValue, field: PythonValue, missingField: (record: Record<string, PythonValue>) => string): PythonValue {
  const record = findRecord(office, kind, id);
  if (record === undefined) return `${kind.noun} not found.`;
  return pickField(record, field) ?? missingField(record);
}

/** Deletes the rows with this ID. */
export function deleteRecord(office: Office, kind: RecordKind, id: PythonValue): string {
  if (!columnContains(office[kind.table], kind.idColumn, id)) return `${kind.noun} not found.`;
  office[kind.table] = withoutRows(office[kind.table], kind.idColumn, id);
  return `${kind.noun} deleted successfully.`;
}

/** Sets `field` of the rows with this ID; a field that is not a column gets `invalidField` (after the ID was found, as upstream). */
export function updateRecord(office: Office, kind: RecordKind, id: PythonValue, field: PythonValue, value: PythonValue, invalidField: string): string {
  const table = office[kind.table];
  if (!columnContains(table, kind.idColumn, id)) return `${kind.noun} not found.`;
  if (!isColumn(table, field)) return invalidField;
  office[kind.table] = table.updateWhere(cellEquals(table, kind.idColumn, id), field, value);
  return `${kind.noun} updated successfully.`;
}
