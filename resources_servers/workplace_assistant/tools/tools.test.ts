import { describe, expect, it } from 'vitest';
import { pyFloat, PythonError } from 'ngym/python-compat';
import { paginate } from './pandas.ts';
import { pythonSearch } from './python-regex.ts';
import { compareTimestamps, parseTimestamp, timestampDate } from './timestamp.ts';

function pythonErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof PythonError) return `${error.type}: ${error.message}`;
    throw error;
  }
  throw new Error('expected a PythonError');
}

describe('search patterns are Python regexes', () => {
  it('matches case-insensitively with Python syntax, possessive quantifiers greedily', () => {
    expect(pythonSearch('(?P<first>lu)cas')('Lucas')).toBe(true);
    expect(pythonSearch('C++')('c++ workshop')).toBe(true);
    expect(pythonSearch('😀😀a++b')('😀😀aab')).toBe(true);
    expect(pythonSearch('^sync$')('sync up')).toBe(false);
  });

  it("raises Python's errors, positions included", () => {
    expect(pythonErrorOf(() => pythonSearch('*sync'))).toBe('re.error: nothing to repeat at position 0');
    expect(pythonErrorOf(() => pythonSearch('a(b(c'))).toBe('re.error: missing ), unterminated subpattern at position 3');
    expect(pythonErrorOf(() => pythonSearch('[(]('))).toBe('re.error: missing ), unterminated subpattern at position 3');
    expect(pythonErrorOf(() => pythonSearch('ok\\'))).toBe('re.error: bad escape (end of pattern) at position 2');
    expect(pythonErrorOf(() => pythonSearch(5))).toBe('TypeError: first argument must be string or compiled pattern');
    expect(pythonErrorOf(() => pythonSearch(['a']))).toBe("TypeError: unhashable type: 'list'");
  });
});

describe('pd.Timestamp', () => {
  const micros = (text: string) => parseTimestamp(text).micros;

  it('parses ISO and common dateutil forms alike', () => {
    const expected = micros('2023-11-30 14:00:00');
    for (const text of ['2023-11-30T14:00', '2023-11-30 2pm', 'Nov 30, 2023 2:00 PM', '11/30/2023 14:00', 'Thursday, 30 November 2023 14:00']) {
      expect(micros(text), text).toBe(expected);
    }
    expect(timestampDate(parseTimestamp('2023-11-30 23:59:00'))).toBe('2023-11-30');
    expect(micros('20231130')).toBe(micros('2023-11-30'));
  });

  it("raises pandas' errors", () => {
    expect(pythonErrorOf(() => parseTimestamp('2023-13-01'))).toBe('ValueError: month must be in 1..12: 2023-13-01');
    expect(pythonErrorOf(() => parseTimestamp('2023-02-30'))).toBe('ValueError: day is out of range for month: 2023-02-30');
    expect(pythonErrorOf(() => parseTimestamp('soon'))).toBe('ValueError: Unknown datetime string format, unable to parse: soon');
    expect(pythonErrorOf(() => parseTimestamp('5'))).toBe('ValueError: Given date string "5" not likely a datetime');
    // No year: dateutil's default year 1 is outside pandas' nanosecond range.
    expect(pythonErrorOf(() => parseTimestamp('Dec 1'))).toBe('OutOfBoundsDatetime: Out of bounds nanosecond timestamp: 1-12-01 00:00:00');
    expect(pythonErrorOf(() => parseTimestamp([]))).toBe("TypeError: Cannot convert input [[]] of type <class 'list'> to Timestamp");
  });

  it('compares across time zones, and not naive with aware', () => {
    expect(compareTimestamps(parseTimestamp('2023-11-30T12:00:00+01:00'), '<=', parseTimestamp('2023-11-30T11:00:00Z'))).toBe(true);
    expect(pythonErrorOf(() => compareTimestamps(parseTimestamp('2023-11-30T12:00Z'), '>=', parseTimestamp('2023-11-30')))).toBe(
      'TypeError: Cannot compare tz-naive and tz-aware timestamps',
    );
    expect(compareTimestamps(parseTimestamp('NaT'), '>=', parseTimestamp('2023-11-30'))).toBe(false);
  });
});

describe('pagination in Python arithmetic', () => {
  const items = Array.from({ length: 12 }, (_, index) => index);

  it('clamps the page and slices', () => {
    const page = paginate(items, 9, 5);
    expect([page.page, page.totalPages, page.items()]).toEqual([3, 3, [10, 11]]);
    expect(paginate(items, 0, 5).page).toBe(1);
    expect(paginate([], 1, 5).items()).toEqual([]);
  });

  it('follows Python for odd page sizes', () => {
    expect(pythonErrorOf(() => paginate(items, 1, 0))).toBe('ZeroDivisionError: integer division or modulo by zero');
    expect(pythonErrorOf(() => paginate(items, 1, '5'))).toBe("TypeError: unsupported operand type(s) for +: 'int' and 'str'");
    expect(pythonErrorOf(() => paginate(items, 1, pyFloat(5)).items())).toBe('TypeError: slice indices must be integers or None or have an __index__ method');
    // Negative sizes give negative slice bounds, as in Python: items[0:-2].
    expect(paginate(items, 1, -2).items()).toEqual(items.slice(0, 10));
  });
});
