/**
 * An immutable table with pandas' row labels. Every change returns a new table that shares the unchanged
 * rows with the old one, so a session's copy of the office database costs nothing until it changes, and
 * a change costs one array of row references (a few KB), never a copy of the cells.
 *
 * Row labels follow the pandas operations upstream uses, because verify compares them:
 * filtering keeps labels, `concat(..., ignore_index=True)` renumbers 0..n-1 (`appendRenumbered`),
 * plain `concat` gives the new row its own label 0 (`appendLabelled`).
 */
import { PythonFloat, type PythonValue } from 'ngym/python-compat';

/** null is pandas' NaN (an empty CSV cell) or None. */
export type Cell = PythonValue;
export type Row = readonly Cell[];
export type TableRecord = Record<string, Cell>;

/** A stored float NaN is a missing value, as pandas shows it (null in JSON, equal to None in `equals`). */
function toCell(value: Cell): Cell {
  return value instanceof PythonFloat && Number.isNaN(value.value) ? null : value;
}

export class Table {
  private constructor(
    readonly columns: readonly string[],
    readonly rows: readonly Row[],
    /** null: the labels are 0..n-1 (a RangeIndex). */
    private readonly labelArray: Int32Array | null,
  ) {}

  static fromRows(columns: readonly string[], rows: readonly Row[]): Table {
    return new Table(columns, rows, null);
  }

  get length(): number {
    return this.rows.length;
  }

  label(rowIndex: number): number {
    return this.labelArray === null ? rowIndex : (this.labelArray[rowIndex] as number);
  }

  labels(): number[] {
    return this.rows.map((_, index) => this.label(index));
  }

  columnIndex(column: string): number {
    const index = this.columns.indexOf(column);
    if (index < 0) throw new Error(`table has no column '${column}' (columns: ${this.columns.join(', ')})`);
    return index;
  }

  hasColumn(column: string): boolean {
    return this.columns.includes(column);
  }

  /** The cells of one column, in row order. */
  values(column: string): Cell[] {
    const index = this.columnIndex(column);
    return this.rows.map((row) => row[index] as Cell);
  }

  /** A row as `DataFrame.to_dict(orient="records")` gives it. */
  record(row: Row): TableRecord {
    const record: TableRecord = {};
    this.columns.forEach((column, index) => {
      record[column] = row[index] as Cell;
    });
    return record;
  }

  records(): TableRecord[] {
    return this.rows.map((row) => this.record(row));
  }

  /** A row in this table's column order from a record (missing columns are NaN). */
  rowFrom(record: TableRecord): Row {
    return this.columns.map((column) => (Object.hasOwn(record, column) ? toCell(record[column] as Cell) : null));
  }

  /** The rows for which `keep` holds, with their labels (boolean indexing). */
  filter(keep: (row: Row, rowIndex: number) => boolean): Table {
    const rows: Row[] = [];
    const labels: number[] = [];
    this.rows.forEach((row, index) => {
      if (keep(row, index)) {
        rows.push(row);
        labels.push(this.label(index));
      }
    });
    if (rows.length === this.rows.length) return this;
    const isRange = labels.every((label, index) => label === index);
    return new Table(this.columns, rows, isRange ? null : Int32Array.from(labels));
  }

  /** `pd.concat([table, new_row], ignore_index=True)`: every label becomes its position. */
  appendRenumbered(record: TableRecord): Table {
    return new Table(this.columns, [...this.rows, this.rowFrom(record)], null);
  }

  /** Appends a row with the given label, keeping the others (`pd.concat([table, one_row_frame])`, `.loc[n] = ...`). */
  appendLabelled(record: TableRecord, label: number): Table {
    const labels = new Int32Array(this.rows.length + 1);
    this.rows.forEach((_, index) => {
      labels[index] = this.label(index);
    });
    labels[this.rows.length] = label;
    const isRange = labels.every((value, index) => value === index);
    return new Table(this.columns, [...this.rows, this.rowFrom(record)], isRange ? null : labels);
  }

  /** `table.loc[mask, column] = value`. */
  updateWhere(matches: (row: Row) => boolean, column: string, value: Cell): Table {
    const index = this.columnIndex(column);
    let changed = false;
    const rows = this.rows.map((row) => {
      if (!matches(row)) return row;
      changed = true;
      const copy = [...row];
      copy[index] = toCell(value);
      return copy;
    });
    return changed ? new Table(this.columns, rows, this.labelArray) : this;
  }

  /** Replaces every cell of one column (`table[column] = table[column].map(...)`). */
  mapColumn(column: string, map: (cell: Cell) => Cell): Table {
    const index = this.columnIndex(column);
    const rows = this.rows.map((row) => {
      const copy = [...row];
      copy[index] = map(row[index] as Cell);
      return copy;
    });
    return new Table(this.columns, rows, this.labelArray);
  }
}
