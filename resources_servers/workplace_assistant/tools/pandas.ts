/**
 * The pandas operations upstream's tools are made of, with pandas' semantics where they show in outputs:
 * `Series.str.contains` (a Python regex; a NaN or non-str cell is NaN in the mask, which boolean indexing
 * rejects), `Series == value`, `value in Series.values`, `Series.max()` over strings, and the ID arithmetic
 * `str(int(max) + 1).zfill(8)`. Also the tools' shared pagination, in Python integer arithmetic.
 */
import {
  isPythonDict,
  pyFloat,
  pythonCompare,
  pythonEquals,
  PythonError,
  pythonInt,
  pythonNumber,
  pythonRepr,
  pythonTypeName,
  type PythonValue,
} from 'ngym/python-compat';
import type { Cell, Row, Table } from '../database/table.ts';
import { pythonSearch } from './python-regex.ts';

/** A cell as the Python value a tool reads: a missing value is float NaN (truthy, `str()` is "nan"). */
export function asPython(cell: Cell | undefined): PythonValue {
  return cell === null || cell === undefined ? pyFloat(NaN) : cell;
}

const NA_MASK = 'Cannot mask with non-boolean array containing NA / NaN values';

/**
 * `table[table[column].str.contains(pattern, case=False, na=na)]`. Without `na`, a non-str cell is missing in
 * the mask: pandas refuses such a mask, or, when no cell is a str, reads it as column labels (KeyError).
 * Missing cells print as None there: in these tables they come from tools storing None.
 */
export function filterContains(table: Table, column: string, pattern: PythonValue, na?: boolean): Table {
  const matches = pythonSearch(pattern);
  const index = table.columnIndex(column);
  if (na === undefined && table.length > 0 && table.rows.every((row) => typeof row[index] !== 'string')) {
    const labels = table.rows.map((row) => (row[index] === null ? 'None' : 'nan')).join(', ');
    throw new PythonError('KeyError', pythonRepr(`None of [Index([${labels}], dtype='object')] are in the [columns]`));
  }
  return table.filter((row) => {
    const cell = row[index];
    if (typeof cell === 'string') return matches(cell);
    if (na === undefined) throw new PythonError('ValueError', NA_MASK);
    return na;
  });
}

/** `table[column] == value` per row (object arrays compare with Python ==; NaN equals nothing). */
export function cellEquals(table: Table, column: string, value: PythonValue): (row: Row) => boolean {
  const index = table.columnIndex(column);
  return (row) => row[index] !== null && pythonEquals(row[index], value);
}

/** The first row whose `column` equals `value` (`table[table[column] == value].to_dict("records")[0]`). */
export function findRow(table: Table, column: string, value: PythonValue): Row | undefined {
  return table.rows.find(cellEquals(table, column, value));
}

/** `value in table[column].values`. */
export function columnContains(table: Table, column: string, value: PythonValue): boolean {
  return findRow(table, column, value) !== undefined;
}

/** Deletes the rows whose `column` equals `value`, keeping the other rows' labels. */
export function withoutRows(table: Table, column: string, value: PythonValue): Table {
  const matches = cellEquals(table, column, value);
  return table.filter((row) => !matches(row));
}

/** `key in table.columns` (an unhashable key is Python's TypeError). */
export function isColumn(table: Table, key: PythonValue): key is string {
  if (Array.isArray(key) || isPythonDict(key)) throw new PythonError('TypeError', `unhashable type: '${pythonTypeName(key)}'`);
  return typeof key === 'string' && table.hasColumn(key);
}

/** `int(table[column].max()) + 1`: the max is over the (string) cells, skipping NaN. */
export function nextId(table: Table, column: string): number {
  let max: Cell | undefined;
  for (const cell of table.values(column)) {
    if (cell === null) continue;
    // numpy's object max keeps the running value when it is >= the next one.
    if (max === undefined || !pythonCompare(max, '>=', cell)) max = cell;
  }
  if (max === undefined) throw new PythonError('ValueError', 'cannot convert float NaN to integer');
  return pythonInt(max) + 1;
}

/** Python's `str(n).zfill(width)`. */
export function zfill(value: number, width = 8): string {
  const text = String(value);
  const sign = text.startsWith('-') ? '-' : '';
  return sign + text.slice(sign.length).padStart(width - sign.length, '0');
}

// ---------------------------------------------------------------------------------------------------
// Pagination: `total_pages = (total + page_size - 1) // page_size`, `page = max(1, min(page, total_pages))`,
// `items[(page - 1) * page_size : min(start + page_size, total)]`, with whatever page/page_size the model sent.

type Operator = '+' | '-' | '*' | '//';

function arithmetic(a: PythonValue, operator: Operator, b: PythonValue): PythonValue {
  const left = pythonNumber(a);
  const right = pythonNumber(b);
  if (left === undefined || right === undefined) {
    throw new PythonError('TypeError', `unsupported operand type(s) for ${operator}: '${pythonTypeName(a)}' and '${pythonTypeName(b)}'`);
  }
  const isFloat = pythonTypeName(a) === 'float' || pythonTypeName(b) === 'float';
  let result: number;
  switch (operator) {
    case '+':
      result = left + right;
      break;
    case '-':
      result = left - right;
      break;
    case '*':
      result = left * right;
      break;
    default:
      if (right === 0) throw new PythonError('ZeroDivisionError', isFloat ? 'float floor division by zero' : 'integer division or modulo by zero');
      result = Math.floor(left / right);
  }
  return isFloat ? pyFloat(result) : result;
}

/** Python's `min(a, b)` / `max(a, b)`: the first argument unless the second is strictly smaller / larger. */
function pythonMin(a: PythonValue, b: PythonValue): PythonValue {
  return pythonCompare(b, '<', a) ? b : a;
}
function pythonMax(a: PythonValue, b: PythonValue): PythonValue {
  return pythonCompare(b, '>', a) ? b : a;
}

function sliceIndex(value: PythonValue, length: number): number {
  if (typeof value !== 'number' && typeof value !== 'boolean') {
    throw new PythonError('TypeError', 'slice indices must be integers or None or have an __index__ method');
  }
  const index = Number(value);
  return index < 0 ? Math.max(0, index + length) : Math.min(index, length);
}

export interface Page<T> {
  page: PythonValue;
  pageSize: PythonValue;
  totalPages: PythonValue;
  /** `items[start_idx:end_idx]`, evaluated only when upstream evaluates it (a float index raises then). */
  items(): T[];
  /** The search tools' answer: `{<name>: items, pagination: {total_<name>, page, page_size, total_pages}}`. */
  answer(name: string): PythonValue;
}

export function paginate<T>(items: T[], page: PythonValue, pageSize: PythonValue): Page<T> {
  const total = items.length;
  const totalPages = arithmetic(arithmetic(arithmetic(total, '+', pageSize), '-', 1), '//', pageSize);
  const current = pythonCompare(totalPages, '>', 0) ? pythonMax(1, pythonMin(page, totalPages)) : 1;
  const start = arithmetic(arithmetic(current, '-', 1), '*', pageSize);
  const end = pythonMin(arithmetic(start, '+', pageSize), total);
  const slice = () => {
    const from = sliceIndex(start, total);
    const to = sliceIndex(end, total);
    return from < to ? items.slice(from, to) : [];
  };
  return {
    page: current,
    pageSize,
    totalPages,
    items: slice,
    answer: (name) => ({
      [name]: slice() as PythonValue[],
      pagination: { [`total_${name}`]: total, page: current, page_size: pageSize, total_pages: totalPages },
    }),
  };
}
