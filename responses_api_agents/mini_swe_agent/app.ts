/**
 * mini_swe_agent: the bash-only agent NeMo Gym runs on SWE-bench-style instances (mini-swe-agent's
 * DefaultAgent with its SWE-bench prompts). Each turn the model answers with one ```bash block; the command
 * runs in a fresh `bash -lc` in the instance's sandbox session (the repository at /testbed, files persist
 * between commands, processes do not); its output comes back as the next user message, until the model
 * submits (`echo MINI_SWE_AGENT_FINAL_OUTPUT && git add -A && git diff --cached`) or a limit ends the run.
 * Then the instance's eval script runs in the same session and the SWE-bench report of FAIL_TO_PASS and
 * PASS_TO_PASS decides the reward. `/run` returns NeMo Gym's verify-shaped rollout; there is no resources
 * server (the sandbox is the environment).
 *
 * `env: local` runs the repository from `repos_dir/<repo>` in a bubblewrap box; `env: docker|podman` runs
 * the instance's SWE-bench image with the container provider. `env: sandbox` (upstream mini_swe_agent_2's value)
 * works in the box the resources server's `/seed_session` made and takes the reward from its `/verify`
 * (task-box.ts).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import {
  assistantText,
  ConfigError,
  defineAgent,
  ModelServerRef,
  NgymError,
  normalizeInput,
  raiseForStatus,
  RawJson,
  refusedRow,
  type RequestContext,
  ResourcesServerRef,
  Response,
  type ResponseItem,
  type ResponseUsage,
  type RunRequest,
  Sandbox,
  sandboxConfigSchema,
  type SandboxFile,
  type SandboxProvider,
  sandboxProviderFor,
  type SandboxRunResult,
  type SandboxSession,
  Semaphore,
  type ServerConfigOf,
  sumUsage,
  validateBody,
} from 'ngym';
import { pythonLstrip, pythonSplitlines, pythonStrip } from 'ngym/python-compat';
import * as z from 'zod';
import { evalReport, evalScript, type Instance, type InstanceReport, isResolved, testList } from './evaluation.ts';
import { adoptTaskBox, type CommandOutcome, runInTaskBox, SandboxEnvironmentKwargs } from './task-box.ts';
import { DEFAULT_TEMPLATES_PATH, loadTemplates, observation, render, type Templates } from './templates.ts';

const WORKDIR = '/testbed';
/** The environment of every command (upstream's SWE-bench configuration). */
const COMMAND_ENV = { PAGER: 'cat', MANPAGER: 'cat', LESS: '-R', PIP_PROGRESS_BAR: 'off', TQDM_DISABLE: '1' };
const SUBMIT_MARKERS = ['MINI_SWE_AGENT_FINAL_OUTPUT', 'COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT', 'LOCALIZATION_FINAL_OUTPUT'];
/** Lines upstream drops from command output (Singularity's own warnings). */
const NOISE = ['/etc/singularity/ exists', 'Ignoring invalid max threads value'];
/** mini-swe-agent's SWE-bench defaults for temperature and top_p. */
const DEFAULT_SAMPLING = 1.0;
/** The identity of the base commit of a local repository: fixed, so its hash is the same everywhere. */
export const COMMIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'ngym',
  GIT_AUTHOR_EMAIL: 'ngym@localhost',
  GIT_AUTHOR_DATE: '2024-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'ngym',
  GIT_COMMITTER_EMAIL: 'ngym@localhost',
  GIT_COMMITTER_DATE: '2024-01-01T00:00:00Z',
};

const config = {
  model_server: ModelServerRef,
  /** env sandbox: the server whose box the agent works in and whose /verify grades it; otherwise never called. */
  resources_server: ResourcesServerRef.optional(),
  /** local: bubblewrap and `repos_dir`; docker/podman: the instance's SWE-bench image; sandbox: the resources server's box. */
  env: z.enum(['local', 'docker', 'podman', 'singularity', 'sandbox']).default('local'),
  /** env sandbox: the sandbox block the resources server makes its boxes with (unset: the one its seed answer names). */
  sandbox_provider: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).nullish(),
  /** env sandbox: upstream mini_swe_agent_2's `cwd`, `user`, `conda_env`, `activate_conda`, `env` for each command. */
  sandbox_environment_kwargs: SandboxEnvironmentKwargs,
  concurrency: z.number().int().positive().default(16),
  /** Singularity only (not supported); accepted for upstream's configs. */
  cache_dir_template: z.string().nullable().optional(),
  /** Evaluate the gold patch instead of running the model (checks an instance). */
  run_golden: z.boolean().default(false),
  step_timeout: z.number().positive().default(600),
  eval_timeout: z.number().positive().default(1800),
  /** Accepted for upstream's configs; `ngym collect` resumes runs instead. */
  skip_if_exists: z.boolean().default(false),
  /** Model calls before the run ends (0: no limit). */
  step_limit: z.number().int().min(0).default(250),
  collapse_limit: z.number().int().min(0).default(3),
  /** env local: where `<repo>` folders are (relative to the working directory, or absolute). */
  repos_dir: z.string().default('responses_api_agents/mini_swe_agent/data/repos'),
  /** The prompts (default: configs/templates.yaml, upstream's). */
  templates_fpath: z.string().nullable().default(null),
  sandbox: sandboxConfigSchema,
};
type Config = ServerConfigOf<typeof config>;

interface State {
  /** env local, docker, podman: the sandbox sessions are opened in. */
  sandbox: Sandbox | undefined;
  /** env sandbox: the provider the resources server's boxes are adopted with (undefined: the seed answer's). */
  boxProvider: SandboxProvider | undefined;
  templates: Templates;
  slots: Semaphore;
}
type Context = RequestContext<Config, State>;

const Row = z.looseObject({
  instance_id: z.string().min(1),
  problem_statement: z.string(),
  base_commit: z.string().min(1),
  test_patch: z.string(),
  FAIL_TO_PASS: z.union([z.array(z.string()), z.string()]),
  PASS_TO_PASS: z.union([z.array(z.string()), z.string()]),
  repo: z.string().optional(),
  patch: z.string().optional(),
  eval_script: z.string().optional(),
  test_cmd: z.string().optional(),
  image_name: z.string().optional(),
  subset: z.string().optional(),
});
type Row = z.infer<typeof Row> & RunRequest;

/** env sandbox: the row goes to the resources server as it is; the agent reads only these fields of it. */
const BoxRow = z.looseObject({
  instance_id: z.string().min(1),
  problem_statement: z.string().optional(),
  patch: z.string().optional(),
});
type BoxRow = z.infer<typeof BoxRow> & RunRequest;

/** What the agent loop reads of a row. */
interface Task {
  instance_id: string;
  problem_statement?: string | undefined;
  responses_create_params: RunRequest['responses_create_params'];
}

function invalid(message: string): NgymError {
  return new NgymError('NGYM_INVALID_REQUEST', message, { status: 422 });
}

function instanceOf(row: Row): Instance {
  try {
    return {
      instance_id: row.instance_id,
      base_commit: row.base_commit,
      test_patch: row.test_patch,
      FAIL_TO_PASS: testList(row.FAIL_TO_PASS, 'FAIL_TO_PASS'),
      PASS_TO_PASS: testList(row.PASS_TO_PASS, 'PASS_TO_PASS'),
      eval_script: row.eval_script,
      test_cmd: row.test_cmd,
    };
  } catch (error) {
    throw invalid(`Instance ${row.instance_id}: ${(error as Error).message}`);
  }
}

/** The instance's SWE-bench image, named as upstream names it (a row's `image_name` wins). */
export function imageName(row: Pick<Row, 'instance_id' | 'image_name' | 'subset'>): string {
  if (row.image_name !== undefined) return row.image_name;
  if ((row.subset ?? 'gym') === 'verified') return `swebench/sweb.eval.x86_64.${row.instance_id.replaceAll('__', '_1776_')}:latest`.toLowerCase();
  return `xingyaoww/sweb.eval.x86_64.${row.instance_id.replaceAll('__', '_s_')}:latest`.toLowerCase();
}

/** Every file of a local repository folder, with its permissions (a .git folder is left out). */
function repositoryFiles(directory: string): SandboxFile[] {
  const files: SandboxFile[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== '.git') walk(path);
      } else if (entry.isFile()) {
        files.push({ path: relative(directory, path), content: readFileSync(path), mode: statSync(path).mode & 0o777 });
      }
    }
  };
  walk(directory);
  return files;
}

/** The instance's session: its repository at /testbed at `base_commit`. */
async function openWorkspace(row: Row, sandbox: Sandbox, agentConfig: Config): Promise<SandboxSession> {
  if (agentConfig.env !== 'local') return sandbox.openSession({ image: imageName(row), workspace: 'image', workdir: WORKDIR });
  if (row.repo === undefined) throw invalid(`Instance ${row.instance_id} has no repo (env local copies repos_dir/<repo>).`);
  const root = resolve(agentConfig.repos_dir);
  const directory = resolve(root, row.repo);
  if (isAbsolute(row.repo) || relative(root, directory).startsWith('..')) throw invalid(`Instance ${row.instance_id}: repo ${row.repo} is outside repos_dir.`);
  let files: SandboxFile[];
  try {
    files = repositoryFiles(directory);
  } catch (error) {
    throw invalid(`Instance ${row.instance_id}: cannot read its repository ${directory}: ${(error as Error).message}`);
  }
  const session = await sandbox.openSession({ workdir: WORKDIR });
  try {
    const setup = await session.run({
      command: ['bash', '-c', 'git init -q -b main && git add -A && git commit -q -m base && git rev-parse HEAD'],
      files,
      env: COMMIT_IDENTITY,
      mergeStderr: true,
    });
    const head = setup.stdout.trim();
    if (setup.exitCode !== 0) throw new NgymError('NGYM_SANDBOX', `Instance ${row.instance_id}: could not commit its repository: ${setup.stdout}`, { status: 503, retryable: true });
    if (head !== row.base_commit) throw invalid(`Instance ${row.instance_id}: base_commit ${row.base_commit} is not the commit of ${directory} (${head}).`);
    return session;
  } catch (error) {
    session.close();
    throw error;
  }
}

function userMessage(text: string): ResponseItem {
  return { type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text }] } as ResponseItem;
}

/** Python's subprocess return code: the exit code, or minus the signal that ended the command. */
function returnCode(result: SandboxRunResult): number {
  if (result.exitCode !== null) return result.exitCode;
  return -((constants.signals as Record<string, number>)[result.signal ?? 'SIGKILL'] ?? 9);
}

/** What upstream keeps of a command's output: leading whitespace and Singularity noise dropped, lines rejoined. */
function cleanOutput(output: string): string {
  if (output === '') return output;
  return pythonSplitlines(pythonLstrip(output))
    .filter((line) => !NOISE.some((noise) => line.includes(noise)))
    .join('\n');
}

interface AgentRun {
  conversation: ResponseItem[];
  /** The messages before the model's first turn (the rollout's `responses_create_params.input`). */
  promptLength: number;
  usage: ResponseUsage | null;
  model: string;
  exitStatus: 'Submitted' | 'LimitsExceeded' | 'CollapseContinued';
  /** The submission (the diff), or the message of the exit. */
  result: string;
}

/** Runs one of the model's commands where the instance's repository is. */
type RunCommand = (action: string) => Promise<CommandOutcome>;

/** A command in a sandbox session: `bash -lc`, stdout and stderr together, within `step_timeout`. */
function sessionCommand(session: SandboxSession, seconds: number): RunCommand {
  return async (action) => {
    const result = await session.run({ command: ['bash', '-lc', action], mergeStderr: true, env: COMMAND_ENV, limits: { wallSeconds: seconds, cpuSeconds: seconds } });
    return { timedOut: result.status === 'wall_timeout', output: result.stdout, returnCode: returnCode(result) };
  };
}

async function runAgent(row: Task, runCommand: RunCommand, context: Context): Promise<AgentRun> {
  const { config: agentConfig, state } = context;
  const params = row.responses_create_params;
  const given = normalizeInput(params.input);
  if (given.length === 0 && row.problem_statement === undefined) throw invalid(`Instance ${row.instance_id} has neither a problem_statement nor responses_create_params.input: the model would have no task.`);
  const conversation: ResponseItem[] =
    given.length > 0
      ? [...given]
      : [
          { role: 'system', content: render(state.templates.system_template, {}) } as ResponseItem,
          { role: 'user', content: render(state.templates.instance_template, { task: row.problem_statement ?? '' }) } as ResponseItem,
        ];
  let usage: ResponseUsage | null = null;
  let model = '';
  let calls = 0;
  // Upstream resets its collapse window to an unbounded deque at the start of each run, so a repeat is
  // only ever caught when the first `collapse_limit` commands are all the same: reproduced as it runs.
  const recent: string[] = [];
  let collapseWarnings = 0;
  const promptLength = conversation.length;
  const end = (exitStatus: AgentRun['exitStatus'], result: string): AgentRun => {
    conversation.push(userMessage(result));
    return { conversation, promptLength, usage, model, exitStatus, result };
  };

  for (;;) {
    if (agentConfig.step_limit > 0 && calls >= agentConfig.step_limit) return end('LimitsExceeded', '');
    const reply = raiseForStatus(
      await context.client.post(agentConfig.model_server.name, '/v1/responses', {
        ...params,
        input: conversation,
        temperature: params.temperature ?? DEFAULT_SAMPLING,
        top_p: params.top_p ?? DEFAULT_SAMPLING,
      }),
    );
    let response: Response;
    try {
      response = validateBody<Response>(Response, reply.json<unknown>());
    } catch (error) {
      throw new NgymError('NGYM_UPSTREAM_BODY', `Model server ${agentConfig.model_server.name} returned an invalid Response: ${(error as Error).message}`);
    }
    calls++;
    usage = sumUsage(usage, response.usage);
    model = response.model;
    conversation.push(...response.output);
    const content = response.output.map((item) => assistantText(item) ?? '').join('');

    const actions = [...content.matchAll(/```bash\s*\n([\s\S]*?)\n```/g)].map((match) => match[1] as string);
    if (actions.length !== 1) {
      conversation.push(userMessage(render(state.templates.format_error_template, { 'actions|length': actions.length })));
      continue;
    }
    const action = pythonStrip(actions[0] as string);
    if (agentConfig.collapse_limit > 0) {
      recent.push(action);
      if (recent.length === agentConfig.collapse_limit && new Set(recent).size === 1) {
        collapseWarnings++;
        if (collapseWarnings >= 2) return end('CollapseContinued', `Agent continued to generate the same output '${action}' after being warned. Terminating due to persistent collapse.`);
        conversation.push(userMessage(render(state.templates.collapse_template, { collapse_limit: agentConfig.collapse_limit, repeated_command: action })));
        continue;
      }
      collapseWarnings = 0;
    }

    const result = await runCommand(action);
    if (result.timedOut) {
      conversation.push(userMessage(render(state.templates.timeout_template, { "action['action']": action, output: result.output })));
      continue;
    }
    const output = cleanOutput(result.output);
    const lines = pythonSplitlines(pythonLstrip(output), true);
    if (lines.length > 0 && SUBMIT_MARKERS.includes(pythonStrip(lines[0] as string))) return end('Submitted', lines.slice(1).join(''));
    conversation.push(userMessage(observation(result.returnCode, output)));
  }
}

interface Evaluation {
  instance_id: string;
  model_patch: string;
  eval_report: Record<string, InstanceReport>;
}

/** Runs the instance's eval script in the session the agent worked in, as upstream does. */
async function evaluate(row: Row, instance: Instance, session: SandboxSession, modelPatch: string, agentConfig: Config): Promise<Evaluation> {
  if (agentConfig.run_golden) {
    if (row.patch === undefined) throw invalid(`Instance ${row.instance_id} has no gold patch (run_golden).`);
    await session.run({ command: ['git', 'apply', '-'], stdin: row.patch, mergeStderr: true });
  }
  const result = await session.run({
    command: ['bash', '-lc', evalScript(instance, WORKDIR)],
    mergeStderr: true,
    env: COMMAND_ENV,
    limits: { wallSeconds: agentConfig.eval_timeout, cpuSeconds: agentConfig.eval_timeout, outputBytes: 64 * 1024 ** 2 },
  });
  if (result.status === 'wall_timeout') {
    const report: InstanceReport = { patch_is_None: false, patch_exists: true, patch_successfully_applied: false, resolved: false, error: `Evaluation timed out after ${agentConfig.eval_timeout} seconds`, timeout: true };
    return { instance_id: row.instance_id, model_patch: modelPatch, eval_report: { [row.instance_id]: report } };
  }
  return { instance_id: row.instance_id, model_patch: modelPatch, eval_report: evalReport(instance, modelPatch, result.stdout) };
}

/** NeMo Gym's synthetic Response around the conversation after the first two messages. */
function rolloutResponse(run: AgentRun, temperature: number, topP: number): Record<string, unknown> {
  return {
    id: `resp_${randomUUID()}`,
    created_at: Math.floor(Date.now() / 1000),
    error: null,
    incomplete_details: null,
    instructions: null,
    metadata: {},
    model: run.model,
    object: 'response',
    output: run.conversation.slice(run.promptLength),
    parallel_tool_calls: true,
    temperature,
    tool_choice: 'auto',
    tools: [],
    top_p: topP,
    background: false,
    max_output_tokens: null,
    max_tool_calls: null,
    previous_response_id: null,
    prompt: null,
    reasoning: { effort: null, generate_summary: null, summary: null },
    service_tier: 'default',
    status: 'completed',
    text: { format: { type: 'text' }, verbosity: 'medium' },
    top_logprobs: 0,
    truncation: 'disabled',
    usage: run.usage ?? { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
    user: null,
    prompt_cache_key: null,
    safety_identifier: null,
    store: true,
  };
}

/**
 * env sandbox: seed the resources server's session, adopt its box, run the agent there (or apply the gold patch, with
 * `run_golden`), let go of the box and return the server's `/verify` answer, the reward SWE-bench grading gives.
 */
async function runInServerBox(request: RunRequest, context: Context): Promise<RawJson> {
  const parsed = BoxRow.safeParse(request);
  if (!parsed.success) throw invalid(`Not a task row: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const row = parsed.data as BoxRow;
  const { config: agentConfig, state } = context;
  const server = (agentConfig.resources_server as { name: string }).name;
  return state.slots.run(async () => {
    const cookies = context.cookies.clone();
    const seeded = raiseForStatus(refusedRow(await context.client.post(server, '/seed_session', row, { cookies })));
    cookies.merge(seeded.cookies);
    const params = row.responses_create_params;
    const verify = async (agentRun: AgentRun) =>
      raiseForStatus(
        refusedRow(
          await context.client.post(
            server,
            '/verify',
            {
              ...row,
              responses_create_params: { ...params, input: agentRun.conversation.slice(0, agentRun.promptLength) },
              response: rolloutResponse(agentRun, params.temperature ?? DEFAULT_SAMPLING, params.top_p ?? DEFAULT_SAMPLING),
            },
            { cookies },
          ),
        ),
      );
    let agentRun: AgentRun;
    try {
      const box = await adoptTaskBox(row.instance_id, seeded.json<unknown>(), state.boxProvider);
      try {
        const runCommand: RunCommand = (action) => runInTaskBox(box, row.instance_id, action, agentConfig.step_timeout, agentConfig.sandbox_environment_kwargs, COMMAND_ENV);
        if (agentConfig.run_golden) {
          if (row.patch === undefined) throw invalid(`Instance ${row.instance_id} has no gold patch (run_golden).`);
          const applied = await runCommand(`git apply - <<'NGYM_GOLD_PATCH'\n${row.patch.endsWith('\n') ? row.patch : `${row.patch}\n`}NGYM_GOLD_PATCH`);
          if (applied.timedOut || applied.returnCode !== 0) throw invalid(`Instance ${row.instance_id}: its gold patch does not apply in the task's box: ${applied.output.trim().slice(0, 500)}`);
          agentRun = { conversation: [], promptLength: 0, usage: null, model: '', exitStatus: 'Submitted', result: row.patch };
        } else {
          agentRun = await runAgent(row, runCommand, context);
        }
      } finally {
        // The server made the box and ends it at /verify: only the adoption is let go of here.
        await box.disconnect();
      }
    } catch (error) {
      // The server ends its box (and the session) at /verify: asked to, so a failed rollout leaves no box behind
      // until the server's ttl; its grade is not the rollout's, which fails with the cause.
      await verify({ conversation: [], promptLength: 0, usage: null, model: '', exitStatus: 'LimitsExceeded', result: '' }).catch(() => {});
      throw error;
    }
    const verified = await verify(agentRun);
    context.responseCookies.merge(cookies);
    return new RawJson(verified.text);
  });
}

async function run(request: RunRequest, context: Context): Promise<RawJson> {
  if (context.config.env === 'sandbox') return runInServerBox(request, context);
  const parsed = Row.safeParse(request);
  if (!parsed.success) throw invalid(`Not a SWE-bench instance row: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const row = parsed.data as Row;
  const instance = instanceOf(row);
  const { config: agentConfig, state } = context;
  return state.slots.run(async () => {
    const session = await openWorkspace(row, state.sandbox as Sandbox, agentConfig);
    try {
      const agentRun: AgentRun = agentConfig.run_golden
        ? { conversation: [], promptLength: 0, usage: null, model: '', exitStatus: 'Submitted', result: row.patch ?? '' }
        : await runAgent(row, sessionCommand(session, agentConfig.step_timeout), context);
      const evaluation = await evaluate(row, instance, session, agentRun.result, agentConfig);
      const params = row.responses_create_params;
      const rollout = {
        responses_create_params: { ...params, input: agentRun.conversation.slice(0, agentRun.promptLength) },
        response: rolloutResponse(agentRun, params.temperature ?? DEFAULT_SAMPLING, params.top_p ?? DEFAULT_SAMPLING),
        reward: isResolved(row.instance_id, evaluation.eval_report) ? 1.0 : 0.0,
        instance_id: row.instance_id,
        metadata: evaluation,
      };
      return new RawJson(JSON.stringify(rollout));
    } finally {
      session.close();
    }
  });
}

export default defineAgent({
  className: 'MiniSWEAgent',
  config,
  setup: async ({ config: agentConfig, globalConfig }): Promise<State> => {
    if (agentConfig.env === 'singularity') {
      throw new ConfigError('NGYM_CONFIG_INVALID', 'mini_swe_agent: env singularity is not supported by ngym; use env local (bubblewrap) or docker/podman with SWE-bench images.', { key: 'env' });
    }
    const templates = loadTemplates(agentConfig.templates_fpath ?? DEFAULT_TEMPLATES_PATH);
    const slots = new Semaphore(agentConfig.concurrency);
    if (agentConfig.env === 'sandbox') {
      if (agentConfig.resources_server === undefined) {
        throw new ConfigError('NGYM_CONFIG_INVALID', 'mini_swe_agent: env sandbox works in the box its resources server makes: set resources_server (e.g. swebench_resources_server).', { key: 'resources_server' });
      }
      const boxProvider = agentConfig.sandbox_provider === undefined || agentConfig.sandbox_provider === null ? undefined : sandboxProviderFor(agentConfig.sandbox_provider, globalConfig).provider;
      return { sandbox: undefined, boxProvider, templates, slots };
    }
    // Sessions get boxes of their own (their work directory is /testbed): no pool of /work boxes.
    const sandboxConfig = { ...agentConfig.sandbox, provider: agentConfig.env === 'local' ? ('bubblewrap' as const) : agentConfig.env, pool_size: 0 };
    // Container images are per instance, so only the local provider can be checked at start.
    const sandbox = agentConfig.env === 'local' ? await Sandbox.checkedFromConfig(sandboxConfig) : Sandbox.fromConfig(sandboxConfig);
    return { sandbox, boxProvider: undefined, templates, slots };
  },
  // The provider's aclose ends only boxes it made: the adopted ones are the resources server's.
  close: async (state) => Promise.all([state.sandbox?.close(), state.boxProvider?.aclose()]).then(() => {}),
  responses: async () => {
    throw new NgymError('NGYM_INVALID_REQUEST', 'mini_swe_agent runs whole instances through /run only; it has no /v1/responses loop.', { status: 501 });
  },
  run,
});
