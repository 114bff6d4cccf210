/**
 * A long-lived program in a sandbox session that answers each JSON line it reads on stdin with one JSON
 * line on stdout, in order: an interpreter keeping a rollout's variables, a judge serving many requests.
 * When the program dies or a request times out, the box is ended and every pending request fails with
 * SandboxError; `alive` tells the owner to start a new one.
 */
import type { Sandbox, SandboxSession } from './sandbox.ts';
import { onStdoutLines, SandboxError, type SandboxRunHandle, type SandboxRunRequest, type SandboxRunResult } from './types.ts';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout | undefined;
}

export class JsonLineProcess {
  private readonly pending: Pending[] = [];
  private ended: string | undefined;

  private constructor(
    private readonly session: SandboxSession,
    private readonly handle: SandboxRunHandle,
  ) {
    onStdoutLines(handle, (line) => {
      const waiter = this.pending.shift();
      if (waiter === undefined) return;
      clearTimeout(waiter.timer);
      try {
        waiter.resolve(JSON.parse(line));
      } catch {
        waiter.reject(new SandboxError(`A sandboxed program answered a line that is not JSON: ${line.slice(0, 200)}`));
      }
    });
    void handle.result.then((result) => this.end(describeEnd(result)));
  }

  /** Opens a session box and starts `request` in it (its wall limit is the program's lifetime). */
  static async start(sandbox: Sandbox, request: SandboxRunRequest): Promise<JsonLineProcess> {
    const session = await sandbox.openSession();
    try {
      return new JsonLineProcess(session, session.start(request));
    } catch (error) {
      session.close();
      throw error;
    }
  }

  get alive(): boolean {
    return this.ended === undefined;
  }

  /** Sends one message; resolves with the answer line, parsed. */
  request<T>(message: unknown, timeoutMs?: number): Promise<T> {
    if (this.ended !== undefined) return Promise.reject(new SandboxError(`The sandboxed program has ended: ${this.ended}`));
    return new Promise<T>((resolve, reject) => {
      const waiter: Pending = { resolve: resolve as (value: unknown) => void, reject, timer: undefined };
      if (timeoutMs !== undefined) waiter.timer = setTimeout(() => this.end(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
      this.pending.push(waiter);
      this.handle.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** Ends the program and its box; pending requests fail. */
  close(reason = 'closed'): void {
    this.end(reason);
  }

  private end(reason: string): void {
    if (this.ended === undefined) this.ended = reason;
    this.session.close();
    for (const waiter of this.pending.splice(0)) {
      clearTimeout(waiter.timer);
      waiter.reject(new SandboxError(`The sandboxed program has ended: ${this.ended}`));
    }
  }
}

function describeEnd(result: SandboxRunResult): string {
  const detail = result.reason ?? (result.signal !== null ? `killed by ${result.signal}` : `exit code ${result.exitCode}`);
  const stderr = result.stderr.trim();
  return `${result.status} (${detail})${stderr ? `: ${stderr.slice(-500)}` : ''}`;
}
