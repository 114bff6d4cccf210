/**
 * Reading dataset rows for validation: every non-empty line must be a JSON object that is a valid
 * `RunRequest` (a strict `responses_create_params` plus any task fields). Problems are reported as
 * `file:line: reason`; upstream dropped such rows silently.
 */
import { isDict } from '../config/tree.ts';
import { RunRequest } from '../protocol/server-bodies.ts';
import { describeValidationError, parseReportingInput } from '../protocol/validation.ts';
import { JsonlLineError, readJsonl } from '../rollouts/jsonl.ts';

export interface InvalidRow {
  path: string;
  line: number;
  reason: string;
}

export function formatInvalidRow(row: InvalidRow): string {
  return `${row.path}:${row.line}: ${row.reason}`;
}

/** Why a parsed line is not a valid dataset row, or undefined when it is one. */
export function rowProblem(value: unknown): string | undefined {
  if (!isDict(value)) return `a row must be a JSON object, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`;
  const result = parseReportingInput(RunRequest, value);
  return result.success ? undefined : describeValidationError(result.error);
}

export type DatasetLine = { line: number; text: string; row: Record<string, unknown> } | { line: number; invalid: InvalidRow };

/** Every non-empty line of a dataset JSONL with its row, or why it is invalid. Streams the file. */
export async function* readDatasetLines(path: string): AsyncGenerator<DatasetLine> {
  for await (const entry of readJsonl(path, { skipInvalid: true })) {
    if (entry instanceof JsonlLineError) {
      yield { line: entry.line, invalid: { path, line: entry.line, reason: entry.reason } };
      continue;
    }
    const problem = rowProblem(entry.value);
    if (problem === undefined) yield { line: entry.line, text: entry.text, row: entry.value as Record<string, unknown> };
    else yield { line: entry.line, invalid: { path, line: entry.line, reason: problem } };
  }
}
