/**
 * Why a collection stopped starting rollouts, shared by every step that can stop it (a caller's stop(), an
 * unreachable or stalled agent, an output that cannot be written) and every step that must notice it.
 */
export class StopSignal {
  private why: string | undefined;
  private readonly controller = new AbortController();

  /** The first reason is kept: it is the one the summary reports. */
  stop(reason: string): void {
    this.why ??= reason;
    this.controller.abort();
  }

  /** Aborts when the run begins stopping, for waits that should end then (admission by memory). */
  get abortSignal(): AbortSignal {
    return this.controller.signal;
  }

  get stopping(): boolean {
    return this.why !== undefined;
  }

  get reason(): string | undefined {
    return this.why;
  }
}
