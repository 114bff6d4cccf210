/**
 * `env: sandbox`: mini_swe_agent working in the box its resources server made, as upstream 0.7.0's sandboxed agents
 * do. `/seed_session` answers the box (`sandbox_descriptor`, or just `sandbox_handle`); the agent adopts it through
 * the provider registry (the provider its `sandbox_provider` selects, the one the server makes boxes with; else the
 * `sandbox_provider` mapping the seed answer carries, as upstream's miniswe_sandboxed_agent reads it), runs each
 * command there and lets go of it without ending it: the server ends it at `/verify`, where the reward comes from.
 * A box that cannot be adopted or fails mid-run is a failed rollout naming the cause, never a graded one.
 */
import {
  ConfigError,
  createSandboxProvider,
  NgymError,
  ProviderSandbox,
  type SandboxDescriptor,
  type SandboxExecResult,
  type SandboxProvider,
  SandboxProviderError,
} from 'ngym';
import * as z from 'zod';

/** Upstream mini_swe_agent_2's `sandbox_environment_kwargs` that apply to a box the agent adopts. */
export const SandboxEnvironmentKwargs = z
  .looseObject({
    /** Where commands run (unset: the box's workdir, the task image's WORKDIR). */
    cwd: z.string().min(1).nullish(),
    /** Who runs them (unset: the image's user). */
    user: z.union([z.string().min(1), z.number().int().min(0)]).nullish(),
    /** A conda environment activated before each command when `activate_conda` (SWE-bench images: `testbed`). */
    conda_env: z.string().min(1).nullish(),
    activate_conda: z.boolean().default(false),
    /** Variables added to every command's environment. */
    env: z.record(z.string(), z.coerce.string()).default({}),
  })
  .default(() => ({ activate_conda: false, env: {} }));
export type SandboxEnvironmentKwargs = z.infer<typeof SandboxEnvironmentKwargs>;

/** What the agent reads of a `/seed_session` answer. */
const SeedAnswer = z.looseObject({
  sandbox_handle: z.string().min(1).nullish(),
  sandbox_descriptor: z.looseObject({ sandbox_id: z.string().min(1) }).nullish(),
  /** Upstream's sandboxed resources servers name their provider config here (`{provider: settings}`). */
  sandbox_provider: z.record(z.string(), z.unknown()).nullish(),
});

/** A command's outcome as the agent loop reads it. */
export interface CommandOutcome {
  timedOut: boolean;
  /** stdout and stderr interleaved. */
  output: string;
  returnCode: number;
}

function boxFailure(instanceId: string, message: string): NgymError {
  return new NgymError('NGYM_SANDBOX', `${instanceId}: ${message}`, { status: 502 });
}

/** The box the seed answer names and the provider to adopt it with (a provider made here is `owned`: closed after the run). */
function adoptionOf(instanceId: string, answer: unknown, configured: SandboxProvider | undefined): { descriptor: SandboxDescriptor; provider: SandboxProvider; owned: boolean } {
  const parsed = SeedAnswer.safeParse(answer);
  if (!parsed.success) throw boxFailure(instanceId, `the resources server's /seed_session answer does not name a box: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  const seed = parsed.data;
  const descriptor = seed.sandbox_descriptor ?? (seed.sandbox_handle ? { sandbox_id: seed.sandbox_handle } : undefined);
  if (descriptor === undefined) throw boxFailure(instanceId, "the resources server's /seed_session answered no sandbox_descriptor or sandbox_handle: it makes no box for the agent to work in (env: sandbox needs one, e.g. the swebench server's)");
  const named = seed.sandbox_provider ?? undefined;
  const namedProvider = named === undefined ? undefined : Object.keys(named).join(', ');
  if (configured !== undefined) {
    if (namedProvider !== undefined && namedProvider !== configured.name) {
      throw boxFailure(instanceId, `the resources server made its box with the sandbox provider '${namedProvider}', but this agent's sandbox_provider selects '${configured.name}'; point both at the same sandbox block`);
    }
    return { descriptor, provider: configured, owned: false };
  }
  if (named === undefined) throw boxFailure(instanceId, "the agent has no sandbox_provider and the resources server's seed answer names none; set sandbox_provider to the block the server uses");
  try {
    return { descriptor, provider: createSandboxProvider(named), owned: true };
  } catch (error) {
    throw boxFailure(instanceId, `cannot adopt the box ${descriptor.sandbox_id}: ${(error as Error).message}`);
  }
}

/** The task's box, adopted from the seed answer; `release` lets go of it without ending it. */
export async function adoptTaskBox(instanceId: string, answer: unknown, configured: SandboxProvider | undefined): Promise<ProviderSandbox> {
  const { descriptor, provider, owned } = adoptionOf(instanceId, answer, configured);
  try {
    return await ProviderSandbox.connect(descriptor, { provider, ownsProvider: owned });
  } catch (error) {
    if (owned) await provider.aclose().catch(() => {});
    const reason = error instanceof SandboxProviderError ? `${error.reason}: ${error.message}` : error instanceof ConfigError ? error.message : (error as Error).message;
    throw boxFailure(instanceId, `cannot adopt the task's box ${descriptor.sandbox_id} with the sandbox provider '${provider.name}' (${reason})`);
  }
}

/** Activates a conda environment first, looking in the usual install roots (a box's exec shell is no login shell). */
function withConda(command: string, environment: string): string {
  const roots = '/opt/miniconda3 /opt/conda "$HOME/miniconda3" "$(conda info --base 2>/dev/null)"';
  const quoted = `'${environment.replaceAll("'", `'\\''`)}'`;
  return `for ngym_root in ${roots}; do [ -n "$ngym_root" ] && [ -f "$ngym_root/etc/profile.d/conda.sh" ] && . "$ngym_root/etc/profile.d/conda.sh" && break; done; conda activate ${quoted} && ${command}`;
}

/**
 * Runs one of the model's commands in the adopted box within `timeoutSeconds`, stderr merged into stdout as the
 * local environment merges them. The box or its engine failing is thrown (the rollout fails); an out-of-memory kill
 * is the command's result (137, the provider's note in its output), as it is the model's doing.
 */
export async function runInTaskBox(box: ProviderSandbox, instanceId: string, action: string, timeoutSeconds: number, kwargs: SandboxEnvironmentKwargs, env: Record<string, string>): Promise<CommandOutcome> {
  // `exec 2>&1` first, so the action runs unchanged (heredocs and all) with its stderr interleaved.
  const body = kwargs.activate_conda && kwargs.conda_env ? withConda(action, kwargs.conda_env) : action;
  const result: SandboxExecResult = await box.exec(`exec 2>&1\n${body}`, {
    timeout_s: timeoutSeconds,
    env: { ...env, ...kwargs.env },
    ...(kwargs.cwd ? { cwd: kwargs.cwd } : {}),
    ...(kwargs.user === undefined || kwargs.user === null ? {} : { user: kwargs.user }),
  });
  const output = `${result.stdout ?? ''}${result.error_type === 'oom' ? (result.stderr ?? '') : ''}`;
  if (result.error_type === 'timeout') return { timedOut: true, output, returnCode: result.return_code };
  if (result.error_type === 'sandbox') throw boxFailure(instanceId, `the task's box ${box.sandboxId} failed while running a command (${(result.stderr ?? '').trim().slice(0, 500)}); it is gone or its engine failed`);
  return { timedOut: false, output, returnCode: result.return_code };
}
