/**
 * The few Python behaviours the log parsers lean on, so that each parser reads like the rule it follows:
 * `re.match`/`re.search`/`re.sub(..., '')` with Python's regex semantics, indexing that fails as Python's
 * `IndexError` does, and indentation measured with Python's whitespace.
 */
import { NgymError } from 'ngym';
import { type PythonMatch, PythonRegex, type PythonRegexFlags, pythonLstrip, pythonStrip } from 'ngym/python-compat';

/** A parser met a log it cannot read (swebench's parser raises there, and the evaluation does not complete). */
export class LogParserError extends NgymError {
  constructor(message: string) {
    super('NGYM_INPUT_INVALID', message, { status: 422 });
  }
}

/**
 * A Python pattern compiled once, where a parser defines it: the parsers run their patterns on every line of a log,
 * and a log may have many thousand lines.
 */
export class PythonPattern {
  private free: PythonRegex | undefined;
  private anchored: PythonRegex | undefined;

  constructor(
    readonly source: string,
    private readonly flags: PythonRegexFlags = {},
  ) {}

  /** `re.match`: a match that starts at the beginning of `text`. */
  match(text: string): PythonMatch | null {
    this.anchored ??= PythonRegex.compile(`\\A(?:${this.source})`, this.flags);
    return this.anchored.search(text);
  }

  /** `re.search`: the first match anywhere in `text`. */
  search(text: string): PythonMatch | null {
    return this.compiled().search(text);
  }

  /** `re.finditer`. */
  finditer(text: string): PythonMatch[] {
    return this.compiled().finditer(text);
  }

  /** `re.sub(pattern, '', text)`: every match removed (none of the parsers' patterns can match empty). */
  remove(text: string): string {
    let kept = '';
    let from = 0;
    for (const match of this.finditer(text)) {
      kept += text.slice(from, match.start);
      from = match.end;
    }
    return kept + text.slice(from);
  }

  private compiled(): PythonRegex {
    this.free ??= PythonRegex.compile(this.source, this.flags);
    return this.free;
  }
}

/** A capture group of a match that must exist; `null` where Python's `re.match(...)` returned None. */
export function group(match: PythonMatch | null, index: number, what: string): string {
  if (match === null) throw new LogParserError(`${what}: the line does not have the expected form ('NoneType' object has no attribute 'group')`);
  return match.groups[index - 1] ?? '';
}

/** `parts[index]`, failing as Python's `IndexError` does where the line has fewer parts. */
export function item(parts: readonly string[], index: number, what: string): string {
  const value = index < 0 ? parts[parts.length + index] : parts[index];
  if (value === undefined) throw new LogParserError(`${what}: the line has ${parts.length} part(s), not ${index + 1} (IndexError: list index out of range)`);
  return value;
}

/** `len(line) - len(line.lstrip())`. */
export function indentOf(line: string): number {
  return line.length - pythonLstrip(line).length;
}

/** `text.count(part)`: non-overlapping occurrences. */
export function countOf(text: string, part: string): number {
  return text.split(part).length - 1;
}

/** A parser: a log (or the part of it between the test-output markers) in, test name to status out. */
export type LogParser = (log: string, instance: { instance_id: string }) => Map<string, string>;

/**
 * The shape most runners' parsers share: each line, stripped, matched from its start; the test's name is capture
 * group `nameGroup`, its status the word in group `wordGroup` looked up in `statusOf` (another word records nothing).
 */
export function lineResultParser(pattern: PythonPattern, nameGroup: number, wordGroup: number, statusOf: Readonly<Record<string, string>>): LogParser {
  return (log) => {
    const statuses = new Map<string, string>();
    for (const line of log.split('\n')) {
      const match = pattern.match(pythonStrip(line));
      if (match === null) continue;
      const word = match.groups[wordGroup - 1] ?? '';
      if (Object.hasOwn(statusOf, word)) statuses.set(match.groups[nameGroup - 1] ?? '', statusOf[word] as string);
    }
    return statuses;
  };
}
