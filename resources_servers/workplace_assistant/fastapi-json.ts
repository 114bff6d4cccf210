/**
 * Tool outputs as upstream's FastAPI route writes them: compact separators (`{"output":"..."}`), non-ASCII
 * kept, Python float repr (`4.0`), and NaN/Infinity as null (pydantic's JSON mode). The model reads these
 * bytes, and recorded rollouts replay only if they are identical.
 */
import { pythonJsonDumps, type PythonValue } from 'ngym/python-compat';

const SEPARATOR_OR_NON_FINITE = /"(?:[^"\\]|\\.)*"|, |: |-?Infinity|NaN/g;

export function fastApiJson(value: PythonValue): string {
  return pythonJsonDumps(value, { ensureAscii: false }).replace(SEPARATOR_OR_NON_FINITE, (token) => {
    if (token.startsWith('"')) return token;
    if (token === ', ') return ',';
    if (token === ': ') return ':';
    return 'null';
  });
}
