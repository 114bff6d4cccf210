/**
 * Upstream's tool timing metrics: each rollout's tool calls are timed, and verify reports (and forgets) the
 * session's totals, so a trainer can see how much of a rollout went into code execution and how often it timed out.
 */
import { SessionStore } from 'ngym';

export interface ToolTiming {
  seconds: number;
  internalTimeout: boolean;
  requestTimeout: boolean;
}

export interface ToolTimingMetrics {
  total_tool_execution_time_seconds: number;
  num_tool_calls: number;
  avg_tool_call_time_seconds: number;
  /** Calls whose code hit the tool's time limit (`process_status` "timeout"). */
  tool_timeout_count: number;
  /** Calls that got no answer at all. */
  tool_request_timeout_count: number;
}

export class ToolTimings {
  // A rollout that never verifies would keep its records: idle ones go after an hour (upstream's dict keeps them).
  private readonly bySession = new SessionStore<ToolTiming[]>();

  record(sessionId: string, timing: ToolTiming): void {
    this.bySession.getOrCreate(sessionId, () => []).push(timing);
  }

  /** The session's metrics; its records are dropped (upstream pops them at verify). */
  take(sessionId: string): ToolTimingMetrics {
    const timings = this.bySession.get(sessionId) ?? [];
    this.bySession.delete(sessionId);
    const total = timings.reduce((sum, timing) => sum + timing.seconds, 0);
    return {
      total_tool_execution_time_seconds: total,
      num_tool_calls: timings.length,
      avg_tool_call_time_seconds: timings.length > 0 ? total / timings.length : 0.0,
      tool_timeout_count: timings.filter((timing) => timing.internalTimeout).length,
      tool_request_timeout_count: timings.filter((timing) => timing.requestTimeout).length,
    };
  }
}
