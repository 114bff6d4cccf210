/**
 * `pd.Timestamp(value)` as the calendar and email tools use it: to validate an event start, to filter by
 * `time_min`/`time_max` or `date_min`/`date_max`, and to sort. ISO forms ("2023-11-30", "2023-11-30 09:00:00",
 * "2023-11-30T09:00Z") and the common dateutil forms ("11/30/2023", "Nov 30, 2023 2pm", "30 November 2023")
 * parse as pandas parses them; missing date parts default to year 1, month 1, day 1 as in pandas (so a
 * date without a year is out of bounds), a time alone takes today's date. Other text raises pandas' ValueError.
 */
import { PythonError, pythonNumber, pythonRepr, pythonStrip, pythonTypeName } from 'ngym/python-compat';

export interface Timestamp {
  /** Wall-clock time in microseconds since 1970-01-01 (as if UTC); NaN for NaT. */
  readonly micros: number;
  /** Minutes east of UTC for a tz-aware timestamp, null for a naive one. */
  readonly offsetMinutes: number | null;
}

const NAT_STRINGS = new Set(['NaT', 'nat', 'NAT', 'nan', 'NaN', 'NAN', '']);
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAME = /^(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)$/i;
const WEEKDAY_OR_FILLER = /^(mon(day)?|tue(s(day)?)?|wed(nesday)?|thu(r(s(day)?)?)?|fri(day)?|sat(urday)?|sun(day)?|at|on|of|the|and)$/i;
const ISO = /^(\d{4})-(\d{1,2})(?:-(\d{1,2})(?:[T ](\d{1,2})(?::(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(?:([ap])\.?m\.?)?)?)?\s*(Z|UTC|[+-]\d{2}(?::?\d{2})?)?$/i;
const TIME = /(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*(?:([ap])\.?m\.?\b)?|\b(\d{1,2})\s*([ap])\.?m\.?\b/i;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

interface Fields {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction: string;
  offsetMinutes: number | null;
}

function unparseable(text: string): never {
  throw new PythonError('ValueError', `Unknown datetime string format, unable to parse: ${text}`);
}

function hour12(hour: number, meridiem: string | undefined, text: string): number {
  if (meridiem === undefined) return hour;
  if (hour < 1 || hour > 12) unparseable(text);
  return (hour % 12) + (meridiem.toLowerCase() === 'p' ? 12 : 0);
}

function offsetOf(zone: string | undefined): number | null {
  if (zone === undefined) return null;
  if (zone.toUpperCase() === 'Z' || zone.toUpperCase() === 'UTC') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
}

function fromIso(match: RegExpExecArray, text: string): Fields {
  return {
    year: Number(match[1]),
    month: Number(match[2]),
    day: match[3] === undefined ? 1 : Number(match[3]),
    hour: hour12(Number(match[4] ?? 0), match[8], text),
    minute: Number(match[5] ?? 0),
    second: Number(match[6] ?? 0),
    fraction: match[7] ?? '',
    offsetMinutes: offsetOf(match[9]),
  };
}

/** dateutil-style: a time anywhere, a month name or numbers separated by / - . or spaces (month first). */
function fromWords(text: string): Fields {
  const fields: Fields = { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, fraction: '', offsetMinutes: null };
  let rest = text;
  const time = TIME.exec(rest);
  if (time !== null) {
    if (time[6] !== undefined) {
      fields.hour = hour12(Number(time[6]), time[7], text);
    } else {
      fields.hour = hour12(Number(time[1]), time[5], text);
      fields.minute = Number(time[2]);
      fields.second = Number(time[3] ?? 0);
      fields.fraction = time[4] ?? '';
    }
    rest = rest.slice(0, time.index) + ' ' + rest.slice(time.index + time[0].length);
  }
  const tokens = rest.split(/[\s,/.-]+/).filter((token) => token !== '' && !WEEKDAY_OR_FILLER.test(token));
  if (tokens.length === 0) {
    if (time === null) unparseable(text);
    // A time alone is today's date (dateutil's default).
    const today = new Date();
    return { ...fields, year: today.getFullYear(), month: today.getMonth() + 1, day: today.getDate() };
  }
  const numbers: string[] = [];
  let monthFromName: number | undefined;
  for (const token of tokens) {
    if (MONTH_NAME.test(token) && monthFromName === undefined) monthFromName = MONTHS.indexOf(token.slice(0, 3).toLowerCase()) + 1;
    else if (/^\d+$/.test(token)) numbers.push(token);
    else unparseable(text);
  }
  if (numbers.length === 1 && (numbers[0] as string).length === 8 && monthFromName === undefined) {
    const digits = numbers[0] as string;
    return { ...fields, year: Number(digits.slice(0, 4)), month: Number(digits.slice(4, 6)), day: Number(digits.slice(6)) };
  }
  if (numbers.length > 3 || numbers.some((number) => number.length > 4 || number.length === 3)) unparseable(text);
  const year = (token: string) => (token.length === 4 ? Number(token) : 2000 + Number(token));
  const yearIndex = numbers.findIndex((token) => token.length === 4);
  if (monthFromName !== undefined) {
    fields.month = monthFromName;
    const others = numbers.filter((_, index) => index !== yearIndex);
    if (yearIndex >= 0) fields.year = Number(numbers[yearIndex]);
    if (others.length > 2) unparseable(text);
    if (others[0] !== undefined) fields.day = Number(others[0]);
    if (others[1] !== undefined) {
      if (yearIndex >= 0) unparseable(text);
      fields.year = year(others[1]);
    }
    return fields;
  }
  if (numbers.length < 2) unparseable(text);
  if (yearIndex === 0) {
    [fields.year, fields.month, fields.day] = [Number(numbers[0]), Number(numbers[1]), Number(numbers[2] ?? 1)];
  } else {
    let [first, second] = [Number(numbers[0]), Number(numbers[1])];
    // Month first, unless the first number cannot be a month.
    if (first > 12 && second <= 12) [first, second] = [second, first];
    [fields.month, fields.day] = [first, second];
    if (numbers[2] !== undefined) fields.year = year(numbers[2]);
  }
  return fields;
}

function validate(fields: Fields, text: string): void {
  const problem = (message: string): never => {
    throw new PythonError('ValueError', `${message}: ${text}`);
  };
  if (fields.month < 1 || fields.month > 12) problem('month must be in 1..12');
  const days = fields.month === 2 && isLeap(fields.year) ? 29 : (DAYS_IN_MONTH[fields.month - 1] as number);
  if (fields.day < 1 || fields.day > days) problem('day is out of range for month');
  if (fields.hour > 23) problem('hour must be in 0..23');
  if (fields.minute > 59) problem('minute must be in 0..59');
  if (fields.second > 59) problem('second must be in 0..59');
}

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

/** pandas' bounds for nanosecond timestamps. */
const MIN_MICROS = -9223372036854775;
const MAX_MICROS = 9223372036854775;

function timestampFromFields(fields: Fields, text: string): Timestamp {
  validate(fields, text);
  const fraction = Number(`0.${fields.fraction || '0'}`);
  const millis = Date.UTC(fields.year, fields.month - 1, fields.day, fields.hour, fields.minute, fields.second);
  // Date.UTC maps years 0..99 to 1900..1999; set the year explicitly.
  const date = new Date(millis);
  date.setUTCFullYear(fields.year);
  const micros = date.getTime() * 1000 + Math.round(fraction * 1e6);
  const utcMicros = micros - (fields.offsetMinutes ?? 0) * 60_000_000;
  if (utcMicros < MIN_MICROS || utcMicros > MAX_MICROS) {
    const time = `${pad(fields.hour)}:${pad(fields.minute)}:${pad(fields.second)}`;
    throw new PythonError('OutOfBoundsDatetime', `Out of bounds nanosecond timestamp: ${fields.year}-${pad(fields.month)}-${pad(fields.day)} ${time}`);
  }
  return { micros, offsetMinutes: fields.offsetMinutes };
}

/** Parsed strings: the tables' date columns repeat the same values across every session's searches. */
const parsed = new Map<string, Timestamp>();
const PARSED_LIMIT = 50_000;

/** `pd.Timestamp(value)`: a str is parsed, an int or float counts nanoseconds since the epoch. */
export function parseTimestamp(value: unknown): Timestamp {
  if (typeof value === 'string') {
    const known = parsed.get(value);
    if (known !== undefined) return known;
    const timestamp = parseTimestampText(value);
    if (parsed.size >= PARSED_LIMIT) parsed.clear();
    parsed.set(value, timestamp);
    return timestamp;
  }
  const number = pythonNumber(value);
  if (number !== undefined && typeof value !== 'boolean') return { micros: number / 1000, offsetMinutes: null };
  throw new PythonError('TypeError', `Cannot convert input [${pythonRepr(value)}] of type <class '${pythonTypeName(value)}'> to Timestamp`);
}

function parseTimestampText(value: string): Timestamp {
  const text = pythonStrip(value);
  if (NAT_STRINGS.has(text)) return { micros: NaN, offsetMinutes: null };
  // pandas rejects number-like strings below 1000 before trying any format.
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) && !text.startsWith('0') && Number(text) < 1000) {
    throw new PythonError('ValueError', `Given date string "${text}" not likely a datetime`);
  }
  const iso = ISO.exec(text);
  return timestampFromFields(iso !== null ? fromIso(iso, text) : fromWords(text), value);
}

function instant(timestamp: Timestamp): number {
  return timestamp.micros - (timestamp.offsetMinutes ?? 0) * 60_000_000;
}

/** Timestamp ordering: NaT compares false, naive against aware raises pandas' TypeError. */
export function compareTimestamps(a: Timestamp, operator: '<=' | '>=', b: Timestamp): boolean {
  if (Number.isNaN(a.micros) || Number.isNaN(b.micros)) return false;
  if ((a.offsetMinutes === null) !== (b.offsetMinutes === null)) throw new PythonError('TypeError', 'Cannot compare tz-naive and tz-aware timestamps');
  const difference = instant(a) - instant(b);
  return operator === '<=' ? difference <= 0 : difference >= 0;
}

/** Sort key for "latest first" orderings (NaT last). */
export function timestampOrder(a: Timestamp, b: Timestamp): number {
  if ((a.offsetMinutes === null) !== (b.offsetMinutes === null)) throw new PythonError('TypeError', 'Cannot compare tz-naive and tz-aware timestamps');
  return (Number.isNaN(b.micros) ? -Infinity : instant(b)) - (Number.isNaN(a.micros) ? -Infinity : instant(a));
}

/** `timestamp.date()` as "YYYY-MM-DD" (its own wall-clock date), comparable as a string. */
export function timestampDate(timestamp: Timestamp): string {
  if (Number.isNaN(timestamp.micros)) throw new PythonError('ValueError', 'NaTType does not support date');
  const date = new Date(Math.floor(timestamp.micros / 1000));
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`;
}
