/**
 * Upstream's calendar grading (`grade_assistant_response`): the assistant's last message must contain the
 * whole calendar as a JSON list of `{event_id, event_name, start_time, duration}`, with exactly the expected
 * events, no two overlapping, each of the expected duration, inside the allowed window, and honouring its
 * constraint ("before 1pm", "after 10:30am", "between 11am and 2pm", "at 3pm"). Python's semantics are kept
 * where they decide the reward: `str(event_id)` keys, `int()` parsing, `==` between events, json.loads.
 */
import {
  isPythonDict,
  pythonEquals,
  PythonError,
  pythonInt,
  pythonJsonLoadsWithFloats,
  pythonNumber,
  pythonStr,
  pythonStrip,
  pythonTypeName,
  type PythonValue,
} from 'ngym/python-compat';

type GradeReason = 'pass' | 'think_found' | 'no_json_list' | 'different_number_of_events' | 'conflicting_events' | 'constraint_violated' | 'error_in_grading';

export interface Grade {
  reward: 0 | 1;
  reason: GradeReason;
}

function fail(message: string): never {
  throw new PythonError('ValueError', message);
}

/** `hour, minute = map(int, text.split(":"))`. */
function hourAndMinute(text: string): [number, number] {
  const parts = text.split(':');
  if (parts.length !== 2) fail(`expected HH:MM, got ${text}`);
  return [pythonInt(parts[0]), pythonInt(parts[1])];
}

/** Minutes since midnight of "10am", "12pm", "2:15pm" (am/pm, lower case) or "14:15" (24-hour). */
export function timeToMinutes(value: unknown): number {
  if (typeof value !== 'string') throw new PythonError('AttributeError', `'${pythonTypeName(value)}' object has no attribute 'strip'`);
  const text = pythonStrip(value);
  const meridiem = text.includes('am') ? 'am' : text.includes('pm') ? 'pm' : undefined;
  if (meridiem === undefined) {
    const [hours, minutes] = hourAndMinute(text);
    return hours * 60 + minutes;
  }
  const offset = meridiem === 'pm' ? 12 * 60 : 0;
  const bare = text.replaceAll(meridiem, '');
  if (!text.includes(':')) {
    const hour = pythonInt(bare);
    return (hour !== 12 ? hour * 60 : 0) + offset;
  }
  const [hour, minute] = hourAndMinute(bare);
  return (hour !== 12 ? hour * 60 : 0) + offset + minute;
}

/**
 * Where `re.search(r"\[(?:[^\[\]]|\{[^}]*\})*\{(?:[^\[\]]|\{[^}]*\})*\}(?:[^\[\]]|\{[^}]*\})*\]", text, re.DOTALL)`
 * matches: the first JSON-like list holding at least one `{...}`. Run as a backtracking engine would, so the
 * same text is chosen, but in linear time (the regex itself backtracks exponentially on unclosed input):
 * a right-to-left pass records from which positions each part of the pattern can still complete, then the
 * match follows the engine's preference order (one more item, plain character first) through those.
 */
export function findCalendarList(text: string): string | undefined {
  const length = text.length;
  // Part 0: items before the required `{`; part 1: items inside it; part 2: items after its `}`.
  const canFinish = [new Uint8Array(length + 1), new Uint8Array(length + 1), new Uint8Array(length + 1)] as const;
  const nextClose = new Int32Array(length + 1).fill(-1);
  for (let index = length - 1; index >= 0; index--) nextClose[index] = text[index] === '}' ? index : (nextClose[index + 1] as number);
  const plain = (index: number) => index < length && text[index] !== '[' && text[index] !== ']';
  /** End of the `{[^}]*}` item starting at index, or -1. */
  const braced = (index: number) => (text[index] === '{' ? (nextClose[index + 1] as number) : -1);
  const leave = (part: number, index: number): boolean => {
    if (part === 0) return text[index] === '{' && canFinish[1][index + 1] === 1;
    if (part === 1) return text[index] === '}' && canFinish[2][index + 1] === 1;
    return text[index] === ']';
  };
  for (let index = length - 1; index >= 0; index--) {
    for (const part of [2, 1, 0]) {
      const close = braced(index);
      const ok = (plain(index) && canFinish[part]![index + 1] === 1) || (close >= 0 && canFinish[part]![close + 1] === 1) || leave(part, index);
      canFinish[part]![index] = ok ? 1 : 0;
    }
  }
  for (let start = 0; start < length; start++) {
    if (text[start] !== '[' || canFinish[0][start + 1] !== 1) continue;
    let part = 0;
    let index = start + 1;
    for (;;) {
      const close = braced(index);
      if (plain(index) && canFinish[part]![index + 1] === 1) index++;
      else if (close >= 0 && canFinish[part]![close + 1] === 1) index = close + 1;
      else if (part < 2) {
        part++;
        index++;
      } else {
        return text.slice(start, index + 1);
      }
    }
  }
  return undefined;
}

/** `extract_json_list`: the first such list parsed with Python's json, or null when there is none or it is not JSON. */
export function extractCalendarList(text: string): PythonValue[] | null {
  const found = findCalendarList(text);
  if (found === undefined) return null;
  try {
    return pythonJsonLoadsWithFloats(found) as PythonValue[];
  } catch (error) {
    if (error instanceof PythonError && error.type === 'JSONDecodeError') return null;
    throw error;
  }
}

/** `event[key]` on whatever the model printed (a non-dict or a missing key raises, as in Python). */
function field(event: PythonValue | undefined, key: string): PythonValue {
  if (!isPythonDict(event)) throw new PythonError('TypeError', `${pythonTypeName(event)} indices must be integers`);
  if (!Object.hasOwn(event, key)) throw new PythonError('KeyError', key);
  return event[key] as PythonValue;
}

/** `start + duration` in Python arithmetic (a str or None duration raises). */
function endOf(start: number, duration: PythonValue): number {
  const minutes = pythonNumber(duration);
  if (minutes === undefined) throw new PythonError('TypeError', 'unsupported operand type(s) for +');
  return start + minutes;
}

function conflicts(events: PythonValue[], event: PythonValue): boolean {
  const start = timeToMinutes(field(event, 'start_time'));
  const end = endOf(start, field(event, 'duration'));
  for (const other of events) {
    // Upstream skips events equal to this one, so an exact duplicate never conflicts with it.
    if (other === event || pythonEquals(other, event)) continue;
    const otherStart = timeToMinutes(field(other, 'start_time'));
    const otherEnd = endOf(otherStart, field(other, 'duration'));
    if (!(end <= otherStart || start >= otherEnd)) return true;
  }
  return false;
}

function satisfies(event: PythonValue, expected: PythonValue): boolean {
  if (!pythonEquals(field(event, 'duration'), field(expected, 'duration'))) return false;
  const earliest = timeToMinutes(field(expected, 'min_time'));
  const latest = timeToMinutes(field(expected, 'max_time'));
  const start = timeToMinutes(field(event, 'start_time'));
  const end = endOf(start, field(event, 'duration'));
  if (start < earliest || end > latest) return false;
  const constraint = field(expected, 'constraint');
  if (constraint === null) return true;
  if (typeof constraint !== 'string') throw new PythonError('AttributeError', "object has no attribute 'startswith'");
  if (constraint.startsWith('before ')) return end <= timeToMinutes(constraint.replaceAll('before ', ''));
  if (constraint.startsWith('after ')) return start >= timeToMinutes(constraint.replaceAll('after ', ''));
  if (constraint.startsWith('between ')) {
    const parts = constraint.replaceAll('between ', '').split(' and ');
    if (parts.length !== 2) fail(`Invalid 'between' constraint format: ${constraint}`);
    return start >= timeToMinutes(parts[0]) && end <= timeToMinutes(parts[1]);
  }
  if (constraint.startsWith('at ')) return start === timeToMinutes(constraint.replaceAll('at ', ''));
  return true;
}

/** `grade_assistant_response(text, exp_cal_state)`. */
export function gradeCalendar(text: string, expected: Record<string, PythonValue>): Grade {
  if (text.includes('<think>')) return { reward: 0, reason: 'think_found' };
  const expectedIds = Object.keys(expected);
  if (expectedIds.length === 0) return { reward: 1, reason: 'pass' };
  try {
    const calendar = extractCalendarList(text);
    if (calendar === null || calendar.length === 0) return { reward: 0, reason: 'no_json_list' };
    const byId = new Map<string, PythonValue>();
    for (const event of calendar) byId.set(pythonStr(field(event, 'event_id')), event);
    if (byId.size !== expectedIds.length) return { reward: 0, reason: 'different_number_of_events' };
    if (calendar.some((event) => conflicts(calendar, event))) return { reward: 0, reason: 'conflicting_events' };
    for (const id of expectedIds) {
      if (!byId.has(id)) throw new PythonError('KeyError', id);
      if (!satisfies(byId.get(id) as PythonValue, expected[id] as PythonValue)) return { reward: 0, reason: 'constraint_violated' };
    }
  } catch (error) {
    if (error instanceof PythonError) return { reward: 0, reason: 'error_in_grading' };
    throw error;
  }
  return { reward: 1, reason: 'pass' };
}
