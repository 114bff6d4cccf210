/**
 * SWE-bench grading in TypeScript with swebench 4.1.0's rules: the swebench resources server calls
 * `gradeSwebenchLog` on the log of a verify run; the differential test (parity/swebench-grading/) holds it to
 * the `swebench` package.
 */
export { FAIL_ONLY_REPOS, LogMarker, ResolvedStatus, type ResolvedStatusValue, TestStatus } from './constants.ts';
export {
  type GradeSwebenchLogInput,
  gradeSwebenchLog,
  logParserFor,
  logsEval,
  type LogsEvaluation,
  resolutionStatus,
  type SwebenchGradeReport,
  type SwebenchInstance,
  type TestGroupResult,
  testList,
  type TestsStatus,
  testsReport,
} from './grade.ts';
export { LOG_PARSERS, type LogParserName, PARSER_OF_REPOSITORY } from './log-parsers/index.ts';
export { LogParserError } from './log-parsers/python-text.ts';
