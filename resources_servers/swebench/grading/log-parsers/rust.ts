/** `cargo test` logs (SWE-bench Multilingual's Rust repositories), as swebench 4.1.0 grades them. */
import { pythonStrip } from 'ngym/python-compat';
import { TestStatus } from '../constants.ts';
import { type LogParser, PythonPattern } from './python-text.ts';

const CARGO_RESULT = new PythonPattern(String.raw`^test\s+(\S+)\s+\.\.\.\s+(\w+)$`);

/** `test path::name ... ok` / `... FAILED`; `ignored` and other outcomes are not recorded. */
export const parseCargo: LogParser = (log) => {
  const statuses = new Map<string, string>();
  for (const line of log.split('\n')) {
    const match = CARGO_RESULT.match(pythonStrip(line));
    if (match === null) continue;
    const [name = '', outcome] = match.groups;
    if (outcome === 'ok') statuses.set(name, TestStatus.PASSED);
    else if (outcome === 'FAILED') statuses.set(name, TestStatus.FAILED);
  }
  return statuses;
};
