/**
 * The rollouts' Python interpreters. Each rollout (session cookie) gets one IPython shell in a sandbox box of
 * its own, kept from call to call as NeMo-Skills' stateful sandbox session is, and ended at verify. A cell past
 * `exec_timeout_s` is interrupted inside the shell (its variables stay); an interpreter that does not answer
 * in time, or dies, is ended, and the session's next call starts a new one: with session restore the earlier
 * cells are replayed into it first, without (`disable_session_restore`) the model is told its state is gone.
 */
import { readFileSync } from 'node:fs';
import { JsonLineProcess, type Logger, Sandbox, type SandboxConfig, SandboxError, SessionStore, succeeded } from 'ngym';
import type { PythonToolSettings } from './tool-specs.ts';
import { type CellAnswer, cellOutput, endedOutput, REQUEST_TIMEOUT_OUTPUT, SESSION_LOST_WARNING } from './tool-output.ts';

const WORKER = readFileSync(new URL('./ipython-worker.py', import.meta.url), 'utf8');

/** How long past the cell's own limit the host waits for an answer before it ends the interpreter. */
const HOST_GRACE_SECONDS = 5;
/** Extra wait for a new interpreter's first answer: importing IPython in a fresh box takes a second or more. */
const STARTUP_SECONDS = 30;

/** Packages the NeMo-Skills sandbox image offers the model's code; missing ones are only warned about. */
const EXPECTED_PACKAGES = ['numpy', 'scipy', 'sympy', 'pandas'];

export interface CallOutcome {
  /** What the model reads (tool-output.ts). */
  output: string;
  /** The cell hit `exec_timeout_s` (upstream's `tool_timeout_count`). */
  internalTimeout: boolean;
  /** The interpreter gave no answer at all and was ended (upstream's `tool_request_timeout_count`). */
  requestTimeout: boolean;
}

type Reply = { kind: 'answer'; answer: CellAnswer } | { kind: 'no_answer' } | { kind: 'ended'; reason: string };

/** One rollout's interpreter and the cells it ran, for a replay after a restart. Calls run one at a time. */
class PythonSession {
  private process: JsonLineProcess | undefined;
  /** Whether the current process has answered yet (its first answer waits for IPython to load). */
  private warm = false;
  private readonly history: string[] = [];
  /** An interpreter holding earlier cells' state ended; the next call restores or warns. */
  private stateLost = false;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly settings: PythonToolSettings,
  ) {}

  call(code: string): Promise<CallOutcome> {
    const next = this.queue.then(() => this.callNow(code));
    this.queue = next.catch(() => {});
    return next;
  }

  close(): void {
    this.closed = true;
    this.dropProcess();
  }

  private async callNow(code: string): Promise<CallOutcome> {
    if (this.closed) throw new SandboxError('The Python session was closed (its rollout was verified or went idle).');
    // An interpreter that ended between calls (a thread of an earlier cell crashed it) is replaced before this cell.
    if (this.process !== undefined && !this.process.alive) this.lose();
    const warning = this.process === undefined ? await this.restart() : '';
    const reply = await this.send(code);
    if (reply.kind === 'answer') {
      if (reply.answer.status !== 'timeout') this.history.push(code);
      return { output: cellOutput(reply.answer, warning), internalTimeout: reply.answer.status === 'timeout', requestTimeout: false };
    }
    this.lose();
    if (reply.kind === 'no_answer') return { output: REQUEST_TIMEOUT_OUTPUT, internalTimeout: false, requestTimeout: true };
    return { output: endedOutput(reply.reason), internalTimeout: false, requestTimeout: false };
  }

  /** Starts an interpreter; after one that held state ended, replays the cells into it or returns the warning. */
  private async restart(): Promise<string> {
    await this.startProcess();
    if (!this.stateLost) return '';
    this.stateLost = false;
    if (this.settings.restoreSessions) {
      const cells = this.history.splice(0);
      for (const cell of cells) {
        const reply = await this.send(cell);
        if (reply.kind !== 'answer' || reply.answer.status === 'timeout') {
          // A cell that no longer completes cannot rebuild the state: start clean and say so.
          this.dropProcess();
          this.history.length = 0;
          await this.startProcess();
          return SESSION_LOST_WARNING;
        }
        this.history.push(cell);
      }
      return '';
    }
    this.history.length = 0;
    return SESSION_LOST_WARNING;
  }

  private async startProcess(): Promise<void> {
    // A box that cannot start fails the request (a retryable 503), never the model's call.
    this.process = await JsonLineProcess.start(this.sandbox, {
      command: ['python3', '-c', WORKER],
      env: { IPYTHONDIR: '/tmp/.ipython', MPLBACKEND: 'Agg' },
      // The interpreter lives as long as the rollout; each cell is bounded by its own alarm and our timer.
      limits: { wallSeconds: 86_400, cpuSeconds: null, outputBytes: 256 * 1024 ** 2 },
    });
    this.warm = false;
  }

  private async send(code: string): Promise<Reply> {
    const process = this.process as JsonLineProcess;
    const seconds = this.settings.execTimeoutSeconds + HOST_GRACE_SECONDS + (this.warm ? 0 : STARTUP_SECONDS);
    let expired = false;
    const timer = setTimeout(() => {
      expired = true;
      process.close(`no answer within ${seconds} s`);
    }, seconds * 1000);
    try {
      const answer = await process.request<CellAnswer>({ code, timeout: this.settings.execTimeoutSeconds, max_output_characters: this.settings.maxOutputCharacters });
      this.warm = true;
      return { kind: 'answer', answer };
    } catch (error) {
      if (!(error instanceof SandboxError)) throw error;
      return expired ? { kind: 'no_answer' } : { kind: 'ended', reason: error.message.replace(/^The sandboxed program has ended: /, '') };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The interpreter is gone; if it held earlier cells' state, the next call restores it or warns. */
  private lose(): void {
    this.dropProcess();
    if (this.history.length > 0) this.stateLost = true;
  }

  private dropProcess(): void {
    this.process?.close();
    this.process = undefined;
  }
}

/** The Python sessions of every rollout of one server, over one sandbox. */
export class PythonSessions {
  private readonly sessions = new SessionStore<PythonSession>({ onEvict: (session) => session.close() });

  private constructor(
    private readonly sandbox: Sandbox,
    private readonly settings: PythonToolSettings,
  ) {}

  /**
   * Starts the sandbox and checks that its Python can run the worker, so a missing requirement stops the server
   * at start with the reason (NGYM_SANDBOX), never by answering the model's calls with errors.
   */
  static async start(config: SandboxConfig, settings: PythonToolSettings, logger: Logger): Promise<PythonSessions> {
    const sandbox = await Sandbox.checkedFromConfig(config);
    try {
      const probe = await sandbox.run({
        command: ['python3', '-c', `import importlib.util, IPython\nprint(",".join(name for name in ${JSON.stringify(EXPECTED_PACKAGES)} if importlib.util.find_spec(name) is None))`],
        limits: { wallSeconds: 60 },
      });
      if (!succeeded(probe)) {
        throw new SandboxError(
          `ns_tools runs the model's code in IPython, which the sandbox's python3 cannot import (${probe.stderr.trim().split('\n').at(-1) ?? probe.status}). Install it: apt-get install python3-ipython (Debian/Ubuntu), or pip install ipython for that Python.`,
        );
      }
      const missing = probe.stdout.trim();
      if (missing !== '') logger.warn(`ns_tools: the sandbox's python3 lacks ${missing}, which NeMo-Skills' sandbox offers the model's code (Debian/Ubuntu: python3-numpy python3-scipy python3-sympy python3-pandas)`);
    } catch (error) {
      await sandbox.close();
      throw error;
    }
    return new PythonSessions(sandbox, settings);
  }

  call(sessionId: string, code: string): Promise<CallOutcome> {
    return this.sessions.getOrCreate(sessionId, () => new PythonSession(this.sandbox, this.settings)).call(code);
  }

  /** Ends a rollout's interpreter (upstream's `cleanup_request` at verify). */
  end(sessionId: string): void {
    this.sessions.get(sessionId)?.close();
    this.sessions.delete(sessionId);
  }

  async close(): Promise<void> {
    await this.sandbox.close();
  }
}
