/**
 * code_gen: competitive programming. The model's last ```python block runs against the task's unit tests
 * (stdin/stdout, or call-based with `fn_name`) in the sandbox; the reward is 1.0 when every test passes.
 * Same instance names, row format, verify response and rewards as NeMo Gym's code_gen (0.7.0), which
 * runs the same LiveCodeBench rules unsandboxed (see grade.ts).
 */
import { inflateSync } from 'node:zlib';
import {
  defineResourcesServer,
  NgymError,
  type Response,
  responseOutputText,
  Sandbox,
  sandboxConfigSchema,
  Semaphore,
} from 'ngym';
import {
  addAverageSampleStdDev,
  computePassMajorityMetrics,
  computeSubsetMetrics,
  highestKMetrics,
  pickMetrics,
  type ScoreFunction,
} from 'ngym/metrics';
import { pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import { Grader, type UnitTests } from './grade.ts';

const PlainTests = z.looseObject({ inputs: z.array(z.string()), outputs: z.array(z.string()), fn_name: z.string().nullable().optional() });
// Upstream's datasets may store the tests zlib-compressed and base64-encoded, to keep large files small.
const PackedTests = z.looseObject({ packed: z.string(), fn_name: z.string().nullable().optional() });

type PlainTests = z.infer<typeof PlainTests>;
type PackedTests = z.infer<typeof PackedTests>;
const isPacked = (raw: PlainTests | PackedTests): raw is PackedTests => typeof raw.packed === 'string';

/** The tests of a row, unpacked. */
export function unitTestsOf(raw: PlainTests | PackedTests): UnitTests {
  if (!isPacked(raw)) return raw;
  let decoded: PlainTests;
  try {
    decoded = PlainTests.parse(JSON.parse(inflateSync(Buffer.from(raw.packed, 'base64')).toString('utf8')));
  } catch (error) {
    throw new NgymError('NGYM_INVALID_REQUEST', `verifier_metadata.unit_tests.packed is not base64 of zlib-compressed {inputs, outputs} JSON: ${String(error)}`, { status: 422 });
  }
  return { inputs: decoded.inputs, outputs: decoded.outputs, fn_name: raw.fn_name ?? null };
}

/** The text between the last two lines that contain ``` (LiveCodeBench's extraction); '' with fewer. */
export function extractCode(text: string): string {
  const lines = text.split('\n');
  const fences = lines.flatMap((line, index) => (line.includes('```') ? [index] : []));
  const [open, close] = fences.slice(-2);
  return open === undefined || close === undefined ? '' : lines.slice(open + 1, close).join('\n');
}

/** The verify fields upstream's code_gen returns besides the reward. */
interface CodeGenFields {
  extracted_model_output: string | null;
  extracted_model_code: string | null;
  result: unknown[] | null;
  metadata: Record<string, unknown> | null;
  unit_tests_time_taken: number | null;
  reasoning_format_violation_rate: number;
  difficulty: string | null;
}

/** `<think>` tags in the final answer, or more than one of either tag in the reasoning. */
export function hasReasoningFormatViolation(response: Response): boolean {
  const answer = responseOutputText(response);
  if (answer.includes('<think>') || answer.includes('</think>')) return true;
  let reasoning = '';
  for (const item of response.output) {
    if (item.type !== 'reasoning') continue;
    for (const part of item.summary ?? []) if (typeof part.text === 'string') reasoning += part.text;
  }
  const count = (tag: string) => reasoning.split(tag).length - 1;
  return count('<think>') > 1 || count('</think>') > 1;
}

const passedAnyTest: ScoreFunction = (rollout) => ({ accuracy: Number(rollout.reward > 0) });

export default defineResourcesServer({
  className: 'CompCodingResourcesServer',
  config: {
    /** Solutions graded at once. */
    num_processes: z.number().int().positive().default(8),
    /** Time limit of each test (and of loading the code), in whole seconds as upstream's SIGALRM. */
    unit_test_timeout_secs: z.number().int().positive().default(10),
    /** Accepted for upstream's configs; no effect. */
    debug: z.boolean().default(false),
    /** The reward of an answer with misplaced `<think>` tags (upstream 0.7.0). */
    reasoning_format_penalty: z.number().default(0.0),
    sandbox: sandboxConfigSchema,
  },
  setup: async ({ config }) => {
    const sandbox = await Sandbox.checkedFromConfig(config.sandbox);
    return { sandbox, grader: new Grader(sandbox, config.unit_test_timeout_secs), slots: new Semaphore(config.num_processes) };
  },
  close: async (state) => {
    state.grader.close();
    await state.sandbox.close();
  },
  verifyRequest: z.looseObject({
    verifier_metadata: z.looseObject({ unit_tests: z.union([PlainTests, PackedTests]), difficulty: z.string().nullable().optional() }),
  }),
  // Upstream 0.7.0's run metrics: pass@k and friends of the extracted code, overall and per difficulty.
  computeMetrics: (tasks) => {
    const overall = computePassMajorityMetrics(tasks, passedAnyTest, 'extracted_model_code');
    addAverageSampleStdDev(overall);
    return { ...overall.metrics, ...computeSubsetMetrics(tasks, 'difficulty', passedAnyTest, 'extracted_model_code') };
  },
  getKeyMetrics: (metrics) => {
    const difficulties = new Set(Object.keys(metrics).filter((name) => name.includes('/pass@') && /^\p{Ll}/u.test(name)).map((name) => name.split('/pass@')[0] as string));
    return Object.assign(
      pickMetrics(metrics, ['mean/input_tokens', 'mean/output_tokens']),
      highestKMetrics(metrics, 'pass@1[avg-of-{k}]', { scoreNames: ['accuracy'] }),
      highestKMetrics(metrics, 'pass@{k}', { scoreNames: ['accuracy'] }),
      highestKMetrics(metrics, 'majority@{k}', { scoreNames: ['accuracy'] }),
      ...[...difficulties].map((difficulty) => highestKMetrics(metrics, `${difficulty}/pass@1[avg-of-{k}]`, { scoreNames: ['accuracy'] })),
    );
  },
  verify: async (request, { config, state }) => {
    const metadata = request.verifier_metadata;
    const answer: CodeGenFields = {
      extracted_model_output: null,
      extracted_model_code: null,
      result: null,
      metadata: null,
      unit_tests_time_taken: null,
      reasoning_format_violation_rate: 0.0,
      difficulty: metadata.difficulty ?? null,
    };
    const modelOutput = responseOutputText(request.response);
    if (pythonStrip(modelOutput) === '') return { reward: 0.0, ...answer };
    const tests = unitTestsOf(metadata.unit_tests);
    const code = extractCode(modelOutput);
    if (code === '') return { reward: 0.0, ...answer, extracted_model_output: modelOutput };

    const { grade, seconds } = await state.slots.run(async () => {
      const started = performance.now();
      const grade = await state.grader.grade(code, tests);
      return { grade, seconds: (performance.now() - started) / 1000 };
    });
    const violation = hasReasoningFormatViolation(request.response);
    const passed = grade.result.every((entry) => entry === true);
    return {
      reward: violation ? config.reasoning_format_penalty : passed ? 1.0 : 0.0,
      ...answer,
      extracted_model_output: modelOutput,
      extracted_model_code: code,
      result: grade.result,
      metadata: grade.metadata,
      unit_tests_time_taken: seconds,
      reasoning_format_violation_rate: violation ? 1.0 : 0.0,
    };
  },
});
