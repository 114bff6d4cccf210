/**
 * Which NeMo-Skills tools ns_tools serves. Upstream loads `nemo_skills_tools` module specs through NeMo-Skills'
 * ToolManager; ngym has its own port of one of them, the stateful Python tool (`DirectPythonTool`, and the
 * legacy `PythonTool` that reached the same sandbox through an MCP sidecar). A spec it has no port of stops the
 * server at start, naming the spec, rather than serving a tool that cannot answer.
 */
import { ConfigError, type FunctionToolDefinition } from 'ngym';
import * as z from 'zod';

export const PYTHON_TOOL_NAME = 'stateful_python_code_exec';

/**
 * The tool as NeMo-Skills lists it and upstream's datasets carry it (prepare_dataset.py writes it into each
 * row). Its "120.0 seconds" is NeMo-Skills' text; the time limit actually applied is `exec_timeout_s`.
 */
export const STATEFUL_PYTHON_TOOL: FunctionToolDefinition = {
  type: 'function',
  name: PYTHON_TOOL_NAME,
  description:
    'Call this function to execute Python code in a stateful Jupyter notebook environment. Python will respond with the output of the execution or time out after 120.0 seconds.',
  parameters: { properties: { code: { description: 'Code to execute', type: 'string' } }, required: ['code'], type: 'object' },
  strict: true,
};

/** Both spellings ToolManager's `locate` accepts (`module::Class`, `module.Class`) of the Python tools, by class. */
const PYTHON_TOOL_SPECS = new Map<string, string>(
  ['DirectPythonTool', 'PythonTool'].flatMap((className) => [
    [`nemo_skills.mcp.servers.python_tool::${className}`, className],
    [`nemo_skills.mcp.servers.python_tool.${className}`, className],
  ]),
);

/**
 * A Python tool's entry of `nemo_skills_tool_overrides`. Other NeMo-Skills keys (its sandbox address, the
 * sidecar's client_params) are accepted and unused: ngym's own sandbox runs the code.
 */
const PythonToolOverrides = z.looseObject({
  /** Seconds one call may run (NeMo-Skills' key; 10 in its tool and in ns_tools.yaml). */
  exec_timeout_s: z.number().positive().default(10),
  /** Characters kept of a call's stdout and of its stderr each, then "<output cut>" (NeMo-Skills' sandbox: 1000). */
  max_output_characters: z.number().int().positive().default(1000),
});

export interface PythonToolSettings {
  execTimeoutSeconds: number;
  maxOutputCharacters: number;
  /** Replay a session's earlier cells into a restarted interpreter (false: `disable_session_restore`). */
  restoreSessions: boolean;
}

/**
 * The Python tool's settings when `nemo_skills_tools` lists it, null when it lists no tool (upstream then
 * serves no tool route at all); a ConfigError for a spec ngym has no port of.
 */
export function pythonToolSettings(
  specs: readonly string[],
  overrides: Record<string, Record<string, unknown>>,
  disableSessionRestore: boolean,
): PythonToolSettings | null {
  const unported = specs.filter((spec) => !PYTHON_TOOL_SPECS.has(spec));
  if (unported.length > 0) {
    throw new ConfigError(
      'NGYM_CONFIG_INVALID',
      `nemo_skills_tools lists ${unported.join(', ')}: ngym has no port of ${unported.length === 1 ? 'that NeMo-Skills tool' : 'those NeMo-Skills tools'}; it serves ${PYTHON_TOOL_NAME} (nemo_skills.mcp.servers.python_tool::DirectPythonTool or ::PythonTool) only.`,
      { key: 'nemo_skills_tools' },
    );
  }
  const classes = [...new Set(specs.map((spec) => PYTHON_TOOL_SPECS.get(spec) as string))];
  if (classes.length === 0) return null;
  if (classes.length > 1) {
    throw new ConfigError('NGYM_CONFIG_INVALID', `nemo_skills_tools lists both ${classes.join(' and ')}, which serve the same tool (${PYTHON_TOOL_NAME}): keep one.`, {
      key: 'nemo_skills_tools',
    });
  }
  const className = classes[0] as string;
  const parsed = PythonToolOverrides.safeParse(overrides[className] ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new ConfigError('NGYM_CONFIG_INVALID', `nemo_skills_tool_overrides.${className}: ${problems}`, { key: `nemo_skills_tool_overrides.${className}` });
  }
  return { execTimeoutSeconds: parsed.data.exec_timeout_s, maxOutputCharacters: parsed.data.max_output_characters, restoreSessions: !disableSessionRestore };
}
