/**
 * Upstream's reward (`is_correct`): replay the model's function calls and the task's ground-truth calls on
 * two fresh copies of the database, then compare the five mutable tables as pandas `DataFrame.equals` does
 * after lowercasing: same columns in order, same row labels, equal cells with NaN equal to NaN/None.
 * Session state plays no part: read-only and failed calls change nothing, so only the end state counts.
 */
import { isPythonDict, pythonEquals, PythonError, pythonJsonLoadsWithFloats } from 'ngym/python-compat';
import { COMPARED_TABLES, freshOffice, type Office, type OfficeDatabase } from './database/office.ts';
import type { Cell, Table } from './database/table.ts';
import { OFFICE_TOOLS_BY_NAME } from './tools/index.ts';
import { callOfficeTool } from './tools/tool.ts';

export interface ToolAction {
  name?: unknown;
  arguments?: unknown;
}

/** Columns whose case matters; every other column is compared lowercased. */
const CASE_SENSITIVE_COLUMNS = new Set(['status', 'list_name', 'board']);

/** `functions[name](**json.loads(arguments))` for each action; an action that raises is skipped. */
function replayActions(database: OfficeDatabase, actions: readonly ToolAction[]): Office {
  const office = freshOffice(database);
  for (const action of actions) {
    const tool = typeof action.name === 'string' ? OFFICE_TOOLS_BY_NAME.get(action.name) : undefined;
    if (tool === undefined || typeof action.arguments !== 'string') continue;
    try {
      const args = pythonJsonLoadsWithFloats(action.arguments);
      if (isPythonDict(args)) callOfficeTool(tool, args, office);
    } catch (error) {
      if (!(error instanceof PythonError)) throw error;
    }
  }
  return office;
}

/** `str.lower()` on a column: strings lowercased, anything else becomes NaN. */
function comparableCell(cell: Cell, column: string): Cell {
  if (CASE_SENSITIVE_COLUMNS.has(column)) return cell;
  return typeof cell === 'string' ? cell.toLowerCase() : null;
}

function tablesEqual(left: Table, right: Table): boolean {
  // Both replays start from the same shared tables: an unchanged table or row is the very same object.
  if (left === right) return true;
  if (left.columns.length !== right.columns.length || left.columns.some((column, index) => column !== right.columns[index])) return false;
  if (left.length !== right.length) return false;
  for (let row = 0; row < left.length; row++) {
    if (left.label(row) !== right.label(row)) return false;
    const leftRow = left.rows[row] as readonly Cell[];
    const rightRow = right.rows[row] as readonly Cell[];
    if (leftRow === rightRow) continue;
    for (const [index, column] of left.columns.entries()) {
      const a = comparableCell(leftRow[index] as Cell, column);
      const b = comparableCell(rightRow[index] as Cell, column);
      if (a === null || b === null ? a !== b : !pythonEquals(a, b)) return false;
    }
  }
  return true;
}

export function isCorrect(database: OfficeDatabase, predicted: readonly ToolAction[], groundTruth: readonly ToolAction[]): boolean {
  const predictedOffice = replayActions(database, predicted);
  const expectedOffice = replayActions(database, groundTruth);
  return COMPARED_TABLES.every((name) => tablesEqual(predictedOffice[name], expectedOffice[name]));
}
