/**
 * math_advanced_calculations: instruction following with deliberately wrong calculators. The model must
 * compute the asked values with the tools (add adds an extra 1.2, sin returns the cosine, pi is e, ...)
 * and is rewarded 1.0 only when every ground-truth value appears, exactly, among the tool results of its
 * trajectory. Tools are one catch-all route, as upstream: `POST /<tool>` with `{a?, b?, radians?, base?}`.
 */
import { defineResourcesServer, readJsonBody, type ResponseItem } from 'ngym';
import { parsePythonFloat } from 'ngym/python-compat';
import * as z from 'zod';
import { runCalculatorTool } from './calculator.ts';

function valueError(message: string): Error {
  return Object.assign(new Error(message), { name: 'ValueError' });
}

/** `json.loads(ground_truth)`: a JSON list of numbers. */
function parseGroundTruth(text: string): number[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw valueError(`ground_truth is not valid JSON: ${String(error)}`);
  }
  if (!Array.isArray(parsed) || !parsed.every((value) => typeof value === 'number')) throw valueError(`ground_truth must be a JSON list of numbers, got ${text}`);
  return parsed;
}

const ToolOutput = z.looseObject({ solution: z.unknown() });

/** `float(json.loads(output)["solution"])` of a tool output, or undefined where Python would raise. */
function toolSolution(output: unknown): number | undefined {
  if (typeof output !== 'string') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(output);
  } catch {
    return undefined;
  }
  const object = ToolOutput.safeParse(parsed);
  if (!object.success) return undefined;
  const solution = object.data.solution;
  if (typeof solution === 'number') return solution;
  if (typeof solution === 'boolean') return solution ? 1 : 0;
  if (typeof solution === 'string') return parsePythonFloat(solution);
  return undefined;
}

function toolSolutions(output: ResponseItem[]): (number | undefined)[] {
  return output.filter((item) => item.type === 'function_call_output').map((item) => toolSolution(item.output));
}

export default defineResourcesServer({
  className: 'MultiVerseMathHardResourcesServer',
  verifyRequest: z.looseObject({ ground_truth: z.string() }),
  verify: (request) => {
    const expected = parseGroundTruth(request.ground_truth);
    const solutions = toolSolutions(request.response.output);
    // Python's `in`: float equality, so -0.0 matches 0.0 and NaN matches nothing.
    const found = expected.every((value) => solutions.some((solution) => solution === value));
    return { reward: found ? 1.0 : 0.0 };
  },
  routes: (app) => {
    app.post('/:name', async (http) => {
      const result = runCalculatorTool(http.req.param('name'), await readJsonBody(http));
      return http.body(result.body, result.status, { 'content-type': 'application/json' });
    });
  },
});
