/**
 * Noticing a collection that makes no progress: per agent, the time since one of its rollouts last finished
 * (or since it had none in flight). A frozen server answers nothing and closes nothing, so without this a run
 * waits silently for its rollout timeout (hours by default).
 */

export type StallPolicy = 'report' | 'fail' | 'stop';
export const STALL_POLICIES: readonly StallPolicy[] = ['report', 'fail', 'stop'];

export interface Stall {
  agent: string;
  /** Rollout attempts of the agent in flight. */
  inFlight: number;
  /** Milliseconds since a rollout of the agent last finished (or since one was first in flight). */
  quietMs: number;
  /** Milliseconds the oldest attempt in flight has run. */
  oldestMs: number;
}

interface AgentState {
  attempts: Map<number, { startedAt: number; abort: (reason: Error) => void }>;
  lastProgress: number;
  reportedAt: number | undefined;
}

/** Why an attempt was given up: nothing of its agent finished for `stall_timeout_seconds`. */
export class StallError extends Error {
  constructor(readonly stall: Stall) {
    super(`no rollout of agent '${stall.agent}' finished for ${Math.round(stall.quietMs / 1000)} s (stall_timeout_seconds); ${stall.inFlight} were in flight, the oldest for ${Math.round(stall.oldestMs / 1000)} s`);
    this.name = 'StallError';
  }
}

export class StallWatch {
  private readonly agents = new Map<string, AgentState>();
  private nextId = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly onStall: (stall: Stall, abortAll: () => void) => void,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Checks a few times per timeout, so a stall is seen at most a quarter of it late. */
  start(): void {
    this.timer = setInterval(() => this.check(), Math.max(50, Math.min(5000, this.timeoutMs / 4)));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Registers an attempt; the returned function unregisters it when it ends, `finished` when it completed. */
  begin(agent: string, abort: (reason: Error) => void): (finished: boolean) => void {
    let state = this.agents.get(agent);
    if (state === undefined) {
      state = { attempts: new Map(), lastProgress: this.now(), reportedAt: undefined };
      this.agents.set(agent, state);
    }
    if (state.attempts.size === 0) state.lastProgress = this.now();
    const id = this.nextId++;
    state.attempts.set(id, { startedAt: this.now(), abort });
    const agentState = state;
    return (finished) => {
      agentState.attempts.delete(id);
      if (finished) {
        agentState.lastProgress = this.now();
        agentState.reportedAt = undefined;
      }
    };
  }

  check(): void {
    const now = this.now();
    for (const [agent, state] of this.agents) {
      if (state.attempts.size === 0) continue;
      const since = Math.max(state.lastProgress, state.reportedAt ?? -Infinity);
      if (now - since < this.timeoutMs) continue;
      state.reportedAt = now;
      const oldest = Math.min(...[...state.attempts.values()].map((attempt) => attempt.startedAt));
      const stall: Stall = { agent, inFlight: state.attempts.size, quietMs: now - state.lastProgress, oldestMs: now - oldest };
      this.onStall(stall, () => {
        const error = new StallError(stall);
        for (const attempt of [...state.attempts.values()]) attempt.abort(error);
      });
    }
  }
}
