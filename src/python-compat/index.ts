/**
 * `ngym/python-compat`: Python's semantics in TypeScript, for verifiers that must score exactly as upstream's
 * Python does (str methods, regular expressions, json.dumps/loads, repr, comparisons, round).
 */
export { pythonJsonLoads, type PythonJsonLoadsOptions, pythonJsonLoadsWithFloats } from './python-json-loads.ts';
export {
  pyFloat,
  PythonFloat,
  pythonExceptionRepr,
  pythonFloatRepr,
  pythonJsonDumpIndented,
  pythonJsonDumps,
  type PythonJsonOptions,
  pythonStringRepr,
} from './python-json.ts';
export { PydanticFloat, pydanticFloat, PydanticId, PydanticInt } from './pydantic-fields.ts';
export { pythonSequenceRatio } from './python-difflib.ts';
export { type PythonMatch, PythonRegex, PythonRegexError, type PythonRegexFlags } from './python-regex.ts';
export { pythonRound, roundMetric } from './python-round.ts';
export {
  comparePythonStrings,
  PYTHON_WHITESPACE,
  PYTHON_WORD,
  pythonIsAlpha,
  pythonIsLower,
  pythonIsUpper,
  pythonLength,
  pythonLstrip,
  pythonRstrip,
  pythonSlice,
  pythonSplit,
  pythonSplitlines,
  pythonStrip,
} from './python-str.ts';
export {
  type ComparisonOperator,
  isPythonDict,
  parsePythonFloat,
  PythonError,
  pythonCompare,
  pythonContains,
  pythonEquals,
  pythonInt,
  pythonLower,
  pythonNumber,
  pythonRepr,
  pythonStr,
  pythonTruthy,
  pythonTypeName,
  type PythonValue,
} from './python-values.ts';
