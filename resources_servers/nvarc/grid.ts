/**
 * ARC grids as NeMo Gym 0.7.0's nvarc reads them: the grid a model writes as text (its `Board.from_text` with the
 * integer palette), and the integer grids of rows and of transform results (pydantic's `list[list[int]]`, which
 * accepts more than integers: the reward depends on what it accepts, e.g. a numpy float grid `[[1.0, 0.0]]`).
 */
import { PYTHON_WHITESPACE, PYTHON_WORD, pythonSplit, pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';

export type Grid = number[][];

const THINKING = /<think>[\s\S]*?<\/think>/g;

/** Upstream drops every `<think>...</think>` block (shortest match, across lines), then strips. */
export function stripThinking(text: string): string {
  return pythonStrip(text.replace(THINKING, ''));
}

// From the first `\boxed{` to the last `}` after it (greedy, across lines), as Python's re.search(r"\\boxed\{(.+)\}", DOTALL).
const BOXED = /\\boxed\{([\s\S]+)\}/;
// Python's `[^\s\w]` and `\w+` on str patterns: Unicode whitespace and word characters.
const NEITHER_SPACE_NOR_WORD = new RegExp(`[^${PYTHON_WHITESPACE}${PYTHON_WORD}]`, 'gu');
const WORD = new RegExp(`[${PYTHON_WORD}]+`, 'gu');
const COLORS = new Set(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);

/**
 * The grid in a model's text, or null. The text inside the box (when there is one) loses every character that is
 * neither whitespace nor a word character, then every word that is not one of the digits 0-9 (so `10`, `x1` and
 * `٣` go, and `1,2` becomes `12`, then nothing); each line with something left is a row of its space-separated
 * digits. Rows of different lengths, or no row, is no grid.
 */
export function parseGrid(text: string): Grid | null {
  const stripped = stripThinking(text);
  const boxed = BOXED.exec(stripped)?.[1];
  const cells = (boxed ?? stripped).replace(NEITHER_SPACE_NOR_WORD, '').replace(WORD, (word) => (COLORS.has(word) ? word : ''));
  // Rows end at "\n" only; any other whitespace (\r, \x0b, \u2028...) separates cells.
  const rows = cells
    .split('\n')
    .filter((line) => pythonStrip(line) !== '')
    .map((line) => pythonSplit(line).map(Number));
  return isValidGrid(rows) ? rows : null;
}

/** Upstream's `Board.is_valid`: at least one row, a first row that is not empty, every row as long as it. */
export function isValidGrid(grid: Grid): boolean {
  const width = grid[0]?.length ?? 0;
  return width > 0 && grid.every((row) => row.length === width);
}

export function gridsEqual(left: Grid, right: Grid): boolean {
  return left.length === right.length && left.every((row, index) => {
    const other = right[index] as number[];
    return row.length === other.length && row.every((cell, column) => cell === other[column]);
  });
}

// What pydantic strips from a string it reads as an int (Rust's White_Space: \x85 yes, \x1c-\x1f and \ufeff no).
const PYDANTIC_SPACE = '\\t\\n\\v\\f\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PADDED_INTEGER = new RegExp(`^[${PYDANTIC_SPACE}]*([+-]?\\d+(?:_\\d+)*)(?:\\.0+)?[${PYDANTIC_SPACE}]*$`);
/** Floats beyond it are "exceeded maximum size" for pydantic's int. */
const INT64_LIMIT = 2 ** 63;

/**
 * A value as pydantic's lax `int` reads it, or undefined where it refuses: integers, floats with no fraction, bools
 * (as 0/1), and strings of an integer (ASCII digits, `_` between them, an optional `.0...`, surrounding spaces).
 * JSON numbers arrive as JS numbers, so `1.0` and `1` are alike here, as they are to pydantic.
 */
export function laxInt(value: unknown): number | undefined {
  if (typeof value === 'boolean') return Number(value);
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) < INT64_LIMIT ? value + 0 : undefined;
  if (typeof value !== 'string') return undefined;
  const digits = PADDED_INTEGER.exec(value)?.[1];
  return digits === undefined ? undefined : Number(digits.replaceAll('_', '')) + 0;
}

/** pydantic's `list[list[int]]` of a JSON value: the integer grid, or undefined where pydantic refuses the value. */
export function laxIntGrid(value: unknown): Grid | undefined {
  if (!Array.isArray(value)) return undefined;
  const grid: Grid = [];
  for (const row of value) {
    if (!Array.isArray(row)) return undefined;
    const cells = row.map(laxInt);
    if (cells.some((cell) => cell === undefined)) return undefined;
    grid.push(cells as number[]);
  }
  return grid;
}

/** A row field typed `list[list[int]]` upstream: refused (422) where pydantic refuses it, read with `laxIntGrid`. */
export const IntGridField = z.array(z.array(z.unknown())).refine((value) => laxIntGrid(value) !== undefined, 'Input should be a list of lists of valid integers');
