/** `cargo test` logs (SWE-bench Multilingual's Rust repositories), as swebench 4.1.0 grades them. */
import { TestStatus } from '../constants.ts';
import { lineResultParser, type LogParser, PythonPattern } from './python-text.ts';

const CARGO_RESULT = new PythonPattern(String.raw`^test\s+(\S+)\s+\.\.\.\s+(\w+)$`);

/** `test path::name ... ok` / `... FAILED`; `ignored` and other outcomes are not recorded. */
export const parseCargo: LogParser = lineResultParser(CARGO_RESULT, 1, 2, { ok: TestStatus.PASSED, FAILED: TestStatus.FAILED });
