/**
 * SWE-bench grading in TypeScript with swebench 4.1.0's rules: the swebench resources server calls
 * `gradeSwebenchLog` on the log of a verify run; the differential test (parity/swebench-grading/) holds it to
 * the `swebench` package.
 */
export { LogMarker } from './constants.ts';
export { gradeSwebenchLog, logsEval, type SwebenchGradeReport, type SwebenchInstance } from './grade.ts';
export { LOG_PARSERS, type LogParserName, PARSER_OF_REPOSITORY } from './log-parsers/index.ts';
