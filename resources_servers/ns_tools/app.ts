/**
 * ns_tools: math and STEM tasks solved with NeMo-Skills' tools, in practice the stateful Python tool
 * `stateful_python_code_exec`. Each rollout's code runs in an IPython shell of its own inside ngym's sandbox
 * (python-sessions.ts), answered as plain text the way NeMo-Skills' sandbox shows a notebook cell
 * (tool-output.ts); verify scores nothing itself but hands the row to a verifier server, math_with_judge by
 * default, and adds the rollout's tool timing metrics, as upstream 0.7.0's ns_tools does.
 */
import { defineResourcesServer, RequestValidationError, ResourcesServerRef, sandboxConfigSchema, sessionIdOf } from 'ngym';
import { PythonError, pythonJsonDumps, pythonJsonLoads } from 'ngym/python-compat';
import * as z from 'zod';
import { delegateVerify } from './delegated-verify.ts';
import { type CallOutcome, PythonSessions } from './python-sessions.ts';
import { PYTHON_TOOL_NAME, pythonToolSettings } from './tool-specs.ts';
import { ToolTimings } from './tool-timings.ts';

const errorOutput = (message: string) => pythonJsonDumps({ error: message });

/** The model's call as upstream's tool reads it: a JSON object whose `code` is a string. */
function codeOf(body: string): { code: string } | { error: string } {
  let args: unknown;
  try {
    args = pythonJsonLoads(body, { errors: 'python' });
  } catch (error) {
    // Upstream answers a body that is not JSON with the decoder's message, as the tool's result.
    if (error instanceof PythonError) return { error: error.message };
    throw error;
  }
  const code = typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>).code : undefined;
  if (typeof code !== 'string') return { error: `Invalid arguments for ${PYTHON_TOOL_NAME}: it takes an object with a string 'code' (got ${body.slice(0, 200)})` };
  return { code };
}

export default defineResourcesServer({
  className: 'NSToolsResourcesServer',
  config: {
    /** The verifier for rows without `verifier_type`. */
    default_verifier: z.string().default('math_with_judge'),
    /** Verifier servers by the names rows and `default_verifier` use. */
    verifiers: z.record(z.string(), ResourcesServerRef).default({}),
    /** NeMo-Skills tool specs to serve; ngym serves the Python tool (tool-specs.ts). Empty: no tool route. */
    nemo_skills_tools: z.array(z.string()).default([]),
    /** Per-tool settings by class name; the Python tool reads `exec_timeout_s` and `max_output_characters`. */
    nemo_skills_tool_overrides: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
    /** The NeMo-Skills sandbox container's address: accepted for upstream's configs, unused (ngym's sandbox runs the code). */
    sandbox_host: z.union([z.string(), z.number()]).default('127.0.0.1'),
    sandbox_port: z.union([z.string(), z.number()]).default('6000'),
    /** Port of upstream's legacy PythonTool sidecar: accepted, unused (there is no sidecar). */
    python_tool_port: z.number().int().default(8765),
    /** Log each tool call's time and each verify's totals. */
    verbose_tool_logging: z.boolean().default(false),
    /** After a session's interpreter ended, start it afresh and tell the model, instead of replaying its earlier cells. */
    disable_session_restore: z.boolean().default(false),
    sandbox: sandboxConfigSchema,
  },
  setup: async ({ config, logger }) => {
    const settings = pythonToolSettings(config.nemo_skills_tools, config.nemo_skills_tool_overrides, config.disable_session_restore);
    return {
      python: settings === null ? null : await PythonSessions.start(config.sandbox, settings, logger),
      timings: new ToolTimings(),
    };
  },
  close: async (state) => state.python?.close(),
  routes: (app, { state, config, logger }) => {
    const python = state.python;
    // Upstream serves its tools on a catch-all route, and only when it has some.
    if (python === null) return;
    app.post('/:tool_name', async (http) => {
      const toolName = http.req.param('tool_name');
      const text = (output: string) => http.body(output, 200, { 'content-type': 'text/plain; charset=utf-8' });
      if (toolName !== PYTHON_TOOL_NAME) return text(errorOutput(`Unknown tool: ${toolName}`));
      const sessionId = sessionIdOf(http);
      const started = performance.now();
      const call = codeOf(await http.req.text());
      let outcome: CallOutcome = { output: '', internalTimeout: false, requestTimeout: false };
      try {
        outcome = 'error' in call ? { ...outcome, output: errorOutput(call.error) } : await python.call(sessionId, call.code);
      } finally {
        const seconds = (performance.now() - started) / 1000;
        state.timings.record(sessionId, { seconds, internalTimeout: outcome.internalTimeout, requestTimeout: outcome.requestTimeout });
        if (config.verbose_tool_logging) logger.info({ tool: toolName, seconds, internalTimeout: outcome.internalTimeout, requestTimeout: outcome.requestTimeout, session: sessionId.slice(0, 8) }, 'ns_tools tool call');
      }
      return text(outcome.output);
    });
  },
  verifyRequest: z.looseObject({ verifier_type: z.string().nullable().optional() }),
  verify: async (request, { sessionId, state, config, client, logger }) => {
    try {
      const metrics = state.timings.take(sessionId);
      if (config.verbose_tool_logging) logger.info({ session: sessionId.slice(0, 8), ...metrics }, 'ns_tools session metrics');
      // Python's `body.verifier_type or default`: an empty string picks the default too.
      const verifierType = request.verifier_type || config.default_verifier;
      const verifier = config.verifiers[verifierType];
      if (verifier === undefined) {
        // Upstream raises (a 500); the row or the config named a verifier this server does not have.
        throw new RequestValidationError([
          {
            type: 'value_error',
            loc: ['body', 'verifier_type'],
            msg: `Unknown verifier: ${verifierType}. Configure it in 'verifiers' or check 'default_verifier'.`,
            input: request.verifier_type ?? null,
          },
        ]);
      }
      const body = { ...request, verifier_type: request.verifier_type ?? null };
      const delegated = await delegateVerify(client, verifier.name, body);
      return { verifier_type: body.verifier_type, reward: delegated.reward, delegated_response: delegated, ...metrics };
    } finally {
      state.python?.end(sessionId);
    }
  },
});
