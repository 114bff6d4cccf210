/**
 * math_with_code: math problems with a Python tool. `execute_python` runs the model's code in the rollout's
 * own sandbox box, where one Python process keeps its variables from call to call (upstream's per-session
 * worker, with its restricted builtins and numpy/scipy/pandas); verify reads the last `\boxed{}` answer
 * and compares it with `expected_result` by upstream 0.7.0's rule (with `math_verify: true`, also by our math
 * verifier: an ngym extension, off by default so rewards are upstream's).
 */
import { readFileSync } from 'node:fs';
import {
  defineResourcesServer,
  isMessage,
  JsonLineProcess,
  MathVerifier,
  outputText,
  type ResponseItem,
  Sandbox,
  sandboxConfigSchema,
  SandboxError,
  sessionIdOf,
  SessionStore,
} from 'ngym';
import { parsePythonFloat, pythonSplit, pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';

const WORKER = readFileSync(new URL('./worker.py', import.meta.url), 'utf8');
/** Extra time the host gives a call past max_execution_time before it ends the worker itself. */
const HOST_GRACE_SECONDS = 5;

type WorkerAnswer = { ok: true; out: string; err: string; res: string | null } | { ok: false; error: string };

/** The content of the last `\boxed{` with balanced braces, stripped; null if there is none or it is empty. */
export function extractBoxedAnswer(text: string): string | null {
  const marker = '\\boxed{';
  const at = text.lastIndexOf(marker);
  if (at === -1) return null;
  const start = at + marker.length;
  let depth = 1;
  let index = start;
  for (; index < text.length && depth > 0; index++) {
    if (text[index] === '{') depth++;
    else if (text[index] === '}') depth--;
  }
  if (depth !== 0) return null;
  const answer = pythonStrip(text.slice(start, index - 1));
  return answer === '' ? null : answer;
}

/** Upstream's normalization: outer `\(...\)`, `$...$` and `\text{...}` dropped, whitespace collapsed. */
export function normalizeAnswer(answer: string): string {
  let text = pythonStrip(answer);
  if (text.startsWith('\\(') && text.endsWith('\\)')) text = pythonStrip(text.slice(2, -2));
  if (text.startsWith('$') && text.endsWith('$') && text.length > 1) text = pythonStrip(text.slice(1, -1));
  if (text.startsWith('\\text{') && text.endsWith('}')) text = pythonStrip(text.slice(6, -1));
  return pythonSplit(text).join(' ');
}

/** Upstream 0.7.0's comparison: equal after normalization, or equal as floats within 1e-6 relative. */
export function answersMatch(actual: string | null, expected: string): boolean {
  if (actual === null) return false;
  const normalizedActual = normalizeAnswer(actual);
  const normalizedExpected = normalizeAnswer(expected);
  if (normalizedActual === normalizedExpected) return true;
  const a = parsePythonFloat(normalizedActual);
  const e = parsePythonFloat(normalizedExpected);
  return a !== undefined && e !== undefined && Math.abs(a - e) < 1e-6 * Math.max(1.0, Math.abs(e));
}


/** The last boxed answer of the assistant's messages, from the end; else of the tool outputs' stdout. */
export function finalAnswer(output: ResponseItem[]): string | null {
  for (const item of [...output].reverse()) {
    const answer = isMessage(item) && item.role === 'assistant' ? extractBoxedAnswer(outputText(item)) : null;
    if (answer !== null) return answer;
  }
  // The model may have printed its boxed answer from the code instead.
  for (const item of [...output].reverse()) {
    if (item.type !== 'function_call_output' || typeof item.output !== 'string') continue;
    let stdout = item.output;
    try {
      const parsed: unknown = JSON.parse(stdout);
      // Upstream's `.get("stdout", "")`: any JSON object gives its stdout, "" when it has none (so its other
      // keys are not searched); other JSON values (a list, a string) leave the output itself to search.
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) {
        const value = (parsed as Record<string, unknown>).stdout;
        stdout = typeof value === 'string' ? value : '';
      }
    } catch {
      // Not JSON: the output itself is searched.
    }
    const answer = extractBoxedAnswer(stdout);
    if (answer !== null) return answer;
  }
  return null;
}

interface State {
  sandbox: Sandbox;
  /** Only with `math_verify: true`. */
  math: MathVerifier | null;
  workers: SessionStore<Promise<JsonLineProcess>>;
}

function endWorker(state: State, sessionId: string): void {
  const worker = state.workers.get(sessionId);
  state.workers.delete(sessionId);
  void worker?.then((process) => process.close()).catch(() => {});
}

export default defineResourcesServer({
  className: 'PythonExecutorResourcesServer',
  config: {
    /** Seconds one execute_python call may run. */
    max_execution_time: z.number().int().positive().default(10),
    /** Also accept answers our math verifier finds equivalent. Off: exactly upstream 0.7.0's rule (it has no such key). */
    math_verify: z.boolean().default(false),
    /** Time limit of one math-verifier check (with `math_verify: true`). */
    math_timeout_seconds: z.number().positive().default(5),
    sandbox: sandboxConfigSchema,
  },
  setup: async ({ config }): Promise<State> => {
    return {
      sandbox: await Sandbox.checkedFromConfig(config.sandbox),
      math: config.math_verify ? new MathVerifier({ timeoutSeconds: config.math_timeout_seconds, threads: 1 }) : null,
      // A rollout that never verifies would keep its box: idle workers go after an hour.
      workers: new SessionStore<Promise<JsonLineProcess>>({ onEvict: (worker) => void worker.then((process) => process.close()).catch(() => {}) }),
    };
  },
  close: async (state) => {
    await state.math?.close();
    await state.sandbox.close();
  },
  tools: {
    execute_python: {
      description: 'Execute Python code to perform calculations. You have access to numpy, scipy, pandas and basic math operations.',
      parameters: z.strictObject({ code: z.string().describe('The Python code to execute for the calculation.').meta({ title: 'Python Code' }) }),
      handler: async ({ code }, { sessionId, state, config }) => {
        let worker = await state.workers.get(sessionId)?.catch(() => undefined);
        if (worker === undefined || !worker.alive) {
          // A box that cannot start fails the request (a retryable 503), never the model's call.
          const started = JsonLineProcess.start(state.sandbox, {
            command: ['python3', '-c', WORKER, String(config.max_execution_time)],
            // The worker lives as long as the rollout; each call is bounded below.
            limits: { wallSeconds: 86_400, cpuSeconds: null, outputBytes: 256 * 1024 ** 2 },
          });
          state.workers.set(sessionId, started);
          try {
            worker = await started;
          } catch (error) {
            state.workers.delete(sessionId);
            throw error;
          }
        }
        try {
          const answer = await worker.request<WorkerAnswer>({ code }, (config.max_execution_time + HOST_GRACE_SECONDS) * 1000);
          if (answer.ok) return { success: true, stdout: answer.out, stderr: answer.err, error_message: null, result: answer.res };
          return { success: false, stdout: '', stderr: '', error_message: answer.error, result: null };
        } catch (error) {
          if (!(error instanceof SandboxError)) throw error;
          // The code ended its own Python (a limit, a crash, SystemExit): the session starts afresh next call.
          endWorker(state, sessionId);
          return { success: false, stdout: '', stderr: '', error_message: `${error.message}; the Python session was restarted, its variables are gone`, result: null };
        }
      },
    },
  },
  routes: (app, { state }) => {
    app.post('/end_session', (http) => {
      endWorker(state, sessionIdOf(http));
      return http.json({ success: true, stdout: '', stderr: '', error_message: null, result: null });
    });
  },
  verifyRequest: z.looseObject({ expected_result: z.string(), expected_code_contains: z.string().optional() }),
  verify: async (request, { sessionId, state }) => {
    try {
      const expected = request.expected_result;
      const actual = finalAnswer(request.response.output);
      let accuracy = answersMatch(actual, expected);
      if (!accuracy && actual !== null && state.math !== null) accuracy = (await state.math.check(expected, `\\boxed{${actual}}`)).reward > 0.5;
      return { reward: accuracy ? 1.0 : 0.0, extracted_answer: actual, accuracy };
    } finally {
      endWorker(state, sessionId);
    }
  },
});
