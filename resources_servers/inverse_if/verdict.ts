/**
 * inverse_if's verdict rule (upstream 0.7.0's `_extract_verdict`): the judge is asked for JSON like
 * `{"result": "PASS", "explanation": "..."}`. Tried in order: the first fenced block (```json or ```) holding an
 * object; then the first flat object with a `"result": "PASS"|"FAIL"` pair (any case); in both, the object must
 * parse as Python's json.loads parses it and its `result`, upper-cased and stripped, be PASS or FAIL. Else the last
 * five lines, from the last: the first that says PASS (checked first) or FAIL, in any case, decides, with no
 * explanation. Else FAIL.
 */
import { isPythonDict, pythonJsonDumps, pythonJsonLoads, PythonRegex, pythonStrip } from 'ngym/python-compat';

export interface PassFail {
  verdict: 'PASS' | 'FAIL';
  explanation: string;
}

const FENCED = PythonRegex.compile('```(?:json)?\\s*(\\{.*?\\})\\s*```', { dotAll: true });
const RESULT_OBJECT = PythonRegex.compile('\\{[^{}]*"result"\\s*:\\s*"(PASS|FAIL)"[^{}]*\\}', { ignoreCase: true });

/** The verdict an object's text holds, or undefined where upstream moves on to its next strategy. */
function objectVerdict(text: string | undefined): PassFail | undefined {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = pythonJsonLoads(text);
  } catch {
    return undefined;
  }
  if (!isPythonDict(parsed)) return undefined;
  const result = Object.hasOwn(parsed, 'result') ? parsed.result : '';
  // Upstream calls .upper() on it: anything but a string raises AttributeError, which it catches.
  if (typeof result !== 'string') return undefined;
  const verdict = pythonStrip(result.toUpperCase());
  if (verdict !== 'PASS' && verdict !== 'FAIL') return undefined;
  const explanation = Object.hasOwn(parsed, 'explanation') ? parsed.explanation : '';
  // Upstream fails with 500 on an explanation that is not a string (its model's field is a str): kept as its JSON.
  return { verdict, explanation: typeof explanation === 'string' ? explanation : pythonJsonDumps(explanation) };
}

export function passFailVerdict(text: string): PassFail {
  const fromJson = objectVerdict(FENCED.search(text)?.groups[0]) ?? objectVerdict(RESULT_OBJECT.search(text)?.text);
  if (fromJson !== undefined) return fromJson;
  for (const line of pythonStrip(text).split('\n').slice(-5).reverse()) {
    const upper = pythonStrip(line).toUpperCase();
    if (upper.includes('PASS')) return { verdict: 'PASS', explanation: '' };
    if (upper.includes('FAIL')) return { verdict: 'FAIL', explanation: '' };
  }
  return { verdict: 'FAIL', explanation: '' };
}
