/**
 * nvarc: ARC-AGI grid puzzles, by NeMo Gym 0.7.0's nvarc rules. In `transductive` mode the model writes the test
 * output grid (in `\boxed{}` or as plain rows of digits); in `inductive` mode it writes a Python `transform(grid)`,
 * which runs on the test input in the sandbox (runner.py keeps upstream's restrictions). The reward is 1.0 when the
 * predicted grid equals `expected_output`. The mode is the row's `agent_mode`, else the server's.
 */
import { assistantMessages, defineResourcesServer, messageTexts, type ResponseItem, Sandbox, sandboxConfigSchema } from 'ngym';
import { pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import { extractPythonCode } from './extract-code.ts';
import { type Grid, gridsEqual, IntGridField, laxIntGrid, parseGrid } from './grid.ts';
import { TransformRunner } from './transform-runner.ts';

/** Every assistant message's texts, joined with newlines, stripped: what upstream grades in both modes. */
function answerText(output: ResponseItem[]): string {
  return pythonStrip(assistantMessages(output).flatMap(messageTexts).join('\n'));
}

/** The row's grid as pydantic reads it (the schema already refused what pydantic refuses); absent: `[]`, as upstream's default. */
const gridOf = (value: unknown): Grid => (value === undefined ? [] : (laxIntGrid(value) as Grid));

export default defineResourcesServer({
  className: 'NVARCResourcesServer',
  config: {
    /** `transductive` (the model writes the grid) or `inductive` (it writes `transform`); a row's `agent_mode` wins. */
    agent_mode: z.string().default('transductive'),
    /** Seconds `transform` may run (upstream's alarm); the whole program gets 5 more. 0: no alarm. */
    python_timeout_seconds: z.number().int().nonnegative().default(30),
    /** Where inductive answers run (docs/sandbox.md); started at start-up when `agent_mode` is inductive. */
    sandbox: sandboxConfigSchema,
  },
  setup: async ({ config }) => {
    const sandbox = Sandbox.fromConfig(config.sandbox);
    const runner = new TransformRunner(sandbox, config.python_timeout_seconds);
    // A transductive server starts its box only if a row asks for inductive mode; an inductive one checks now.
    if (config.agent_mode === 'inductive') {
      try {
        await runner.ready();
      } catch (error) {
        await sandbox.close();
        throw error;
      }
    }
    return { sandbox, runner };
  },
  close: async (state) => {
    await state.sandbox.close();
  },
  verifyRequest: z.looseObject({
    train: z.array(z.record(z.string(), z.unknown())).optional(),
    test_input: IntGridField.optional(),
    expected_output: IntGridField.optional(),
    task_id: z.string().nullish(),
    agent_mode: z.string().nullish(),
  }),
  verify: async (request, { config, state }) => {
    const agentMode = request.agent_mode || config.agent_mode;
    const testInput = gridOf(request.test_input);
    const expected = gridOf(request.expected_output);
    const text = answerText(request.response.output);
    let predicted: Grid | null;
    if (agentMode === 'inductive') {
      const code = extractPythonCode(text);
      predicted = code === null ? null : await state.runner.run(code, testInput);
    } else {
      predicted = parseGrid(text);
    }
    const exactMatch = predicted !== null && gridsEqual(predicted, expected);
    return {
      reward: exactMatch ? 1.0 : 0.0,
      expected_output: expected,
      predicted_output: predicted,
      extraction_successful: predicted !== null,
      exact_match: exactMatch,
      agent_mode: agentMode,
    };
  },
});
