/**
 * What a local collection does when an agent stalls (`onStall`): it always warns, naming the agent and what
 * is in flight; `fail` also aborts the agent's attempts in flight (recorded as `stalled` failures); `stop`
 * does that and starts nothing new. A distributed run has no watch here: its executor's queue deals with
 * stalled jobs.
 */
import type { CollectOptions } from './collect-options.ts';
import type { StopSignal } from './stop-signal.ts';
import { type Stall, type StallPolicy, StallWatch } from './stall-watch.ts';

export const DEFAULT_STALL_TIMEOUT_SECONDS = 600;

export interface StallHandling {
  /** Undefined when stalls are not checked (`stallTimeoutMs` null, or an executor runs the rollouts). */
  watch: StallWatch | undefined;
  /** Agents given up on: their /aggregate_metrics would wait on the same frozen server. */
  stalledAgents: ReadonlySet<string>;
}

export function startStallHandling(options: Pick<CollectOptions, 'stallTimeoutMs' | 'onStall' | 'warn' | 'executor'>, signal: StopSignal): StallHandling {
  const stalledAgents = new Set<string>();
  const stallTimeoutMs = options.stallTimeoutMs === undefined ? DEFAULT_STALL_TIMEOUT_SECONDS * 1000 : options.stallTimeoutMs;
  if (stallTimeoutMs === null || options.executor !== undefined) return { watch: undefined, stalledAgents };
  const policy = options.onStall ?? 'stop';
  const warn = options.warn ?? ((message: string) => process.stderr.write(`\n${message}\n`));
  const watch = new StallWatch(stallTimeoutMs, (stall, abortAll) => {
    warn(stallWarning(stall, policy));
    if (policy === 'report') return;
    stalledAgents.add(stall.agent);
    if (policy === 'stop') signal.stop(`agent '${stall.agent}' stalled`);
    abortAll();
  });
  watch.start();
  return { watch, stalledAgents };
}

function stallWarning(stall: Stall, policy: StallPolicy): string {
  const action =
    policy === 'report'
      ? 'waiting on (on_stall=report)'
      : policy === 'fail'
        ? 'recording them as failures and going on (on_stall=fail)'
        : 'recording them as failures and starting nothing new (on_stall=stop); resume later with +resume=true';
  return (
    `Stalled: no rollout of agent '${stall.agent}' finished for ${Math.round(stall.quietMs / 1000)} s; ${stall.inFlight} in flight, the oldest for ${Math.round(stall.oldestMs / 1000)} s. ` +
    `A server behind it may be frozen or overloaded (\`ngym run\` reports servers that stop answering). ${action[0]?.toUpperCase()}${action.slice(1)}.`
  );
}
