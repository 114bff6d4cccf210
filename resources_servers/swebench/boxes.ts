/**
 * The swebench server's boxes: the spec a row's box is made from (upstream's sandbox_config keys), the anti-cheat
 * setup of the agent's box, taking the agent's `git diff`, and one evaluation in a fresh box.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NgymError, type SandboxExecResult, type SandboxHandle, type SandboxProvider, sandboxProviderFor, type SandboxSpecInput, SessionStore } from 'ngym';
import * as z from 'zod';
import { evaluationScript, MODEL_PATCH_PATH, type SwebenchInstance, TEST_PATCH_PATH } from './instance.ts';

/** Upstream's `sandbox_config` block. */
export const SandboxConfig = z.looseObject({
  ttl_s: z.number().positive().nullish(),
  ready_timeout_s: z.number().positive().nullish(),
  /** Upstream sets thread-count variables (OMP_NUM_THREADS, ...) from `resources.cpu`. */
  derive_cpu_env: z.boolean().default(true),
  env: z.record(z.string(), z.coerce.string()).default({}),
  resources: z.record(z.string(), z.unknown()).default({}),
  provider_options: z.record(z.string(), z.unknown()).default({}),
  metadata: z.record(z.string(), z.coerce.string()).default({}),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** The config keys the box servers (swebench, terminal_bench_2_1) share: upstream's, plus ngym's `command_timeout`. */
export const BOX_SERVER_CONFIG = {
  /** The sandbox block (or an inline `{provider: settings}`) boxes are made with (docs/sandbox.md). */
  sandbox_provider: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  sandbox_config: SandboxConfig.default(() => SandboxConfig.parse({})),
  /** Seconds the tests may run; past it the rollout is recorded as timed out. */
  evaluation_timeout: z.number().positive().nullish().transform((value) => value ?? 1800),
  /** Grade each row's reference solution instead of the agent's box (validating a task set). */
  is_verifying_golden_patch: z.boolean().default(false),
  /** ngym: seconds a `bash` tool call may run in the agent's box. */
  command_timeout: z.number().positive().default(180),
};

/** A box server's provider and the agent's box of each session (an idle session's box ends after `ttl_s`). */
export interface SessionBoxes {
  provider: SandboxProvider;
  defaultMetadata: Record<string, string>;
  sessions: SessionStore<SandboxHandle>;
}

export function openSessionBoxes(config: { sandbox_provider: unknown; sandbox_config: SandboxConfig }, globalConfig: Parameters<typeof sandboxProviderFor>[1]): SessionBoxes {
  const { provider, defaultMetadata } = sandboxProviderFor(config.sandbox_provider, globalConfig);
  const sessions = new SessionStore<SandboxHandle>({ idleTtlMs: (config.sandbox_config.ttl_s ?? 18_000) * 1000, onEvict: (handle) => void provider.close(handle).catch(() => {}) });
  return { provider, defaultMetadata, sessions };
}

/** Longest output of a `bash` tool call handed back (its start and end kept). */
const MAX_TOOL_OUTPUT_CHARS = 10_000;

export const clipOutput = (text: string): string =>
  text.length <= MAX_TOOL_OUTPUT_CHARS ? text : `${text.slice(0, MAX_TOOL_OUTPUT_CHARS / 2)}\n... [${text.length - MAX_TOOL_OUTPUT_CHARS} characters cut] ...\n${text.slice(-MAX_TOOL_OUTPUT_CHARS / 2)}`;

/** The `bash` tool (ngym's addition for tool-calling agents): one command in the session's box. */
export async function bashInSessionBox(boxes: SessionBoxes, sessionId: string, command: string, timeoutSeconds: number) {
  const handle = boxes.sessions.get(sessionId);
  if (handle === undefined) throw new NgymError('NGYM_INVALID_REQUEST', 'This session has no box: call /seed_session with the task first (or it was already verified).', { status: 400 });
  const result = await boxes.provider.exec(handle, command, { timeout_s: timeoutSeconds });
  return { output: clipOutput(`${result.stdout ?? ''}${result.stderr ?? ''}`), return_code: result.return_code, error_type: result.error_type };
}

/** Thread-count variables capped at the box's CPUs, as upstream's cpu_cap_env sets them. */
const CPU_VARIABLES = ['OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'NUMEXPR_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'];

/** The spec of a task's box: its image, the config's limits and env, metadata naming the server and the task (as upstream's). */
export function boxSpec(image: string, taskId: string, config: SandboxConfig, serverName: string, defaultMetadata: Record<string, string>): SandboxSpecInput {
  const cpu = typeof config.resources.cpu === 'number' ? Math.max(1, Math.floor(config.resources.cpu)) : undefined;
  const derived = config.derive_cpu_env && cpu !== undefined ? Object.fromEntries(CPU_VARIABLES.map((name) => [name, String(cpu)])) : {};
  return {
    image,
    ttl_s: config.ttl_s ?? null,
    ready_timeout_s: config.ready_timeout_s ?? null,
    workdir: null,
    env: { ...derived, ...config.env },
    metadata: { ...defaultMetadata, ...config.metadata, nemo_gym_agent: serverName, instance_id: taskId.slice(0, 63) },
    resources: config.resources as SandboxSpecInput['resources'],
    provider_options: config.provider_options,
  };
}

/**
 * Leaves the agent's repository only its current commit: the future history a SWE-bench image's repository may
 * hold (branches, tags, remotes, reflogs, unreachable objects) is removed, and HEAD is a fresh branch.
 */
export const ANTI_CHEAT_SETUP = [
  'git config --global --add safe.directory "$PWD" 2>/dev/null',
  'git rev-parse --git-dir >/dev/null 2>&1 || { echo "anti-cheat skipped: not a git repository"; exit 0; }',
  'head=$(git rev-parse HEAD) || exit 1',
  'git reset -q --hard',
  'git checkout -q -B ngym_task "$head"',
  'for ref in $(git for-each-ref --format="%(refname)" | grep -v "^refs/heads/ngym_task$"); do git update-ref -d "$ref"; done',
  'for remote in $(git remote); do git remote remove "$remote"; done',
  'rm -f .git/packed-refs .git/ORIG_HEAD .git/FETCH_HEAD; rm -rf .git/logs',
  'git reflog expire --expire=now --all && git gc -q --prune=now',
  'echo "anti-cheat: kept $head, $(git rev-list --all --count) commits reachable"',
].join('\n');

/** Why a command did not run to its end in a box, or undefined when it did. */
export const infrastructureFailure = (result: SandboxExecResult): string | undefined =>
  result.error_type === null ? undefined : `${result.error_type}: ${(result.stderr ?? '').trim().slice(0, 500) || `return code ${result.return_code}`}`;

/** The agent's changes against HEAD (staged or not), or why none could be taken. */
export async function agentDiff(provider: SandboxProvider, handle: SandboxHandle): Promise<{ patch: string } | { agentFault: string } | { infrastructure: string }> {
  // Upstream takes `git diff` of the workdir: changes to tracked files (a new file counts once the agent `git add`s it).
  const result = await provider.exec(handle, 'git config --global --add safe.directory "$PWD" 2>/dev/null; git --no-pager diff HEAD', { timeout_s: 120 });
  const failure = infrastructureFailure(result);
  if (failure !== undefined) return { infrastructure: `could not take the agent's diff (${failure})` };
  if (result.return_code !== 0) return { agentFault: `the agent's box has no readable git repository in its workdir: ${(result.stderr ?? '').trim().slice(0, 300)}` };
  return { patch: result.stdout ?? '' };
}

export interface Evaluation {
  /** stdout then stderr of the evaluation script. */
  log: string;
  timedOut: boolean;
  seconds: number;
}

/** Runs the evaluation script in a fresh box (the caller closes it): patches uploaded, the script run within `timeoutSeconds`. */
export async function evaluate(provider: SandboxProvider, handle: SandboxHandle, instance: SwebenchInstance, modelPatch: string, timeoutSeconds: number): Promise<Evaluation> {
  const folder = await mkdtemp(join(tmpdir(), 'ngym-swebench-'));
  try {
    const hasModelPatch = modelPatch.trim() !== '';
    if (hasModelPatch) {
      await writeFile(join(folder, 'model.patch'), modelPatch.endsWith('\n') ? modelPatch : `${modelPatch}\n`);
      await provider.upload_file(handle, join(folder, 'model.patch'), MODEL_PATCH_PATH);
    }
    if ((instance.test_patch ?? '') !== '') {
      await writeFile(join(folder, 'test.patch'), instance.test_patch as string);
      await provider.upload_file(handle, join(folder, 'test.patch'), TEST_PATCH_PATH);
    }
    await writeFile(join(folder, 'eval.sh'), evaluationScript(instance, hasModelPatch));
    await provider.upload_file(handle, join(folder, 'eval.sh'), '/tmp/ngym_eval.sh');
    const started = performance.now();
    const result = await provider.exec(handle, 'bash /tmp/ngym_eval.sh', { timeout_s: timeoutSeconds });
    const seconds = (performance.now() - started) / 1000;
    if (result.error_type === 'timeout') return { log: `${result.stdout ?? ''}${result.stderr ?? ''}`, timedOut: true, seconds };
    const failure = infrastructureFailure(result);
    if (failure !== undefined) throw new NgymError('NGYM_SANDBOX', `${instance.instance_id}: the evaluation box failed while running the tests (${failure})`, { status: 502 });
    return { log: `${result.stdout ?? ''}${result.stderr ?? ''}`, timedOut: false, seconds };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
