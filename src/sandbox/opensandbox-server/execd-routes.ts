/**
 * The execd subset ngym's OpenSandbox-compatible server answers on a box's proxy path
 * (`/sandboxes/{id}/proxy/44772/...`), served in this process through the sandbox provider that holds the box: no
 * daemon runs in the box. Commands (`POST /command` as server-sent events, background commands with status, logs
 * and interrupt), file upload (multipart) and download, and `GET /ping`.
 */
import { randomUUID } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as z from 'zod';
import { describeValidationError, parseReportingInput } from '../../protocol/validation.ts';
import type { SandboxExecOptions, SandboxExecResult, SandboxHandle, SandboxProvider } from '../providers/contract.ts';
import { type ExecdEvent, LOGS_CURSOR_HEADER, TIMEOUT_ERROR_NAME } from '../providers/opensandbox/wire.ts';
import { OpenSandboxApiError } from './api-error.ts';

/** Set on every command's processes, so an interrupt finds them (and what they started) in the box. */
const COMMAND_MARKER_ENV = 'NGYM_OPENSANDBOX_COMMAND_ID';

const RunCommandRequest = z.object({
  command: z.string().optional(),
  argv: z.array(z.string()).min(1).optional(),
  cwd: z.string().min(1).optional(),
  background: z.boolean().optional(),
  /** Milliseconds. */
  timeout: z.number().int().min(0).optional(),
  uid: z.number().int().min(0).optional(),
  gid: z.number().int().min(0).optional(),
  envs: z.record(z.string(), z.string()).optional(),
});

/** A command started with `background: true`, kept for its status and logs until the box ends. */
interface BackgroundCommand {
  id: string;
  content: string;
  running: boolean;
  exitCode: number | null;
  error: string | null;
  startedAt: Date;
  finishedAt: Date | null;
  output: string;
}

/** What the execd routes need of one box. */
export interface ExecdBox {
  handle: SandboxHandle;
  commands: Map<string, BackgroundCommand>;
}

const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`);

/** Output as execd streams it: one event per line. */
function lines(text: string | null): string[] {
  if (!text) return [];
  const parts = text.split('\n');
  if (parts.at(-1) === '') parts.pop();
  return parts;
}

export class ExecdService {
  constructor(
    private readonly provider: SandboxProvider,
    /** A folder of this server's for the files in transit. */
    private readonly scratch: string,
  ) {}

  async handle(context: Context, box: ExecdBox, path: string): Promise<Response> {
    const method = context.req.method;
    if (path === '/ping' && method === 'GET') return context.body(null, 200);
    if (path === '/command' && method === 'POST') return this.runCommand(context, box);
    if (path === '/command' && method === 'DELETE') return this.interrupt(context, box);
    const status = /^\/command\/status\/([^/]+)$/.exec(path);
    if (status && method === 'GET') return context.json(statusBody(this.command(box, decodeURIComponent(status[1] as string))));
    const logs = /^\/command\/([^/]+)\/logs$/.exec(path);
    if (logs && method === 'GET') return this.logs(context, this.command(box, decodeURIComponent(logs[1] as string)));
    if (path === '/files/upload' && method === 'POST') return this.upload(context, box);
    if (path === '/files/download' && method === 'GET') return this.download(context, box);
    throw new OpenSandboxApiError(501, 'NOT_IMPLEMENTED', `ngym's OpenSandbox-compatible server does not serve execd's ${method} ${path}; it serves GET /ping, POST /command (foreground and background), GET /command/status/{id}, GET /command/{id}/logs, DELETE /command?id=, POST /files/upload and GET /files/download (docs/sandbox.md, "OpenSandbox").`);
  }

  private command(box: ExecdBox, id: string): BackgroundCommand {
    const command = box.commands.get(id);
    if (command === undefined) throw new OpenSandboxApiError(404, 'COMMAND_NOT_FOUND', `No background command ${id} in sandbox ${box.handle.sandbox_id}.`);
    return command;
  }

  private async runCommand(context: Context, box: ExecdBox): Promise<Response> {
    const parsed = parseReportingInput(RunCommandRequest, await context.req.json().catch(() => undefined));
    if (!parsed.success) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `Invalid command request: ${describeValidationError(parsed.error)}`);
    const request = parsed.data;
    const command = request.argv !== undefined ? request.argv.map(shellQuote).join(' ') : request.command;
    if (command === undefined || command.trim() === '') throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', 'A command request needs a non-empty command (or argv).');
    const id = `cmd-${randomUUID()}`;
    const options: SandboxExecOptions = {
      env: { ...request.envs, [COMMAND_MARKER_ENV]: id },
      ...(request.cwd === undefined ? {} : { cwd: request.cwd }),
      ...(request.timeout === undefined || request.timeout === 0 ? {} : { timeout_s: request.timeout / 1000 }),
      ...(request.uid === undefined ? {} : { user: request.gid === undefined ? request.uid : `${request.uid}:${request.gid}` }),
    };
    const started = Date.now();
    if (request.background) {
      const record: BackgroundCommand = { id, content: command, running: true, exitCode: null, error: null, startedAt: new Date(started), finishedAt: null, output: '' };
      box.commands.set(id, record);
      void this.provider.exec(box.handle, command, options).then((result) => {
        const runtimeFailure = result.error_type === 'timeout' || result.error_type === 'sandbox';
        // A runtime failure's message is the status's error, not the command's output.
        record.output = (result.stdout ?? '') + (runtimeFailure ? '' : (result.stderr ?? ''));
        if (runtimeFailure) record.error = result.stderr ?? result.error_type;
        else record.exitCode = result.return_code;
        record.running = false;
        record.finishedAt = new Date();
      });
      return streamSSE(context, async (stream) => {
        for (const event of [{ type: 'init', text: id, timestamp: started }, { type: 'execution_complete', timestamp: Date.now(), execution_time: 0 }] satisfies ExecdEvent[]) {
          await stream.writeSSE({ data: JSON.stringify(event) });
        }
      });
    }
    return streamSSE(context, async (stream) => {
      const send = (event: ExecdEvent) => stream.writeSSE({ data: JSON.stringify(event) });
      await send({ type: 'init', text: id, timestamp: started });
      const result = await this.provider.exec(box.handle, command, options);
      for (const line of lines(result.stdout)) await send({ type: 'stdout', text: line, timestamp: Date.now() });
      const failure = failureEvent(result);
      // A runtime failure's message is its error event, not the command's stderr.
      if (result.error_type !== 'timeout' && result.error_type !== 'sandbox') for (const line of lines(result.stderr)) await send({ type: 'stderr', text: line, timestamp: Date.now() });
      if (failure !== null) await send(failure);
      else await send({ type: 'execution_complete', timestamp: Date.now(), execution_time: Date.now() - started });
    });
  }

  private async interrupt(context: Context, box: ExecdBox): Promise<Response> {
    const id = context.req.query('id');
    if (!id) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', 'Interrupting a command needs its id (?id=).');
    const script = `for d in /proc/[0-9]*; do case "$(tr '\\0' ' ' < "$d/environ" 2>/dev/null)" in *"${COMMAND_MARKER_ENV}=${id} "*) kill -9 "\${d#/proc/}" 2>/dev/null;; esac; done; true`;
    const result = await this.provider.exec(box.handle, script, { user: 'root', timeout_s: 30 });
    if (result.return_code !== 0) throw new OpenSandboxApiError(500, 'INTERRUPT_FAILED', `Interrupting ${id} in sandbox ${box.handle.sandbox_id} failed: ${result.stderr ?? ''}`);
    return context.body(null, 200);
  }

  private logs(context: Context, command: BackgroundCommand): Response {
    const cursor = Number(context.req.query('cursor') ?? 0);
    const from = Number.isInteger(cursor) && cursor >= 0 ? Math.min(cursor, command.output.length) : 0;
    context.header(LOGS_CURSOR_HEADER, String(command.output.length));
    return context.text(command.output.slice(from));
  }

  private async upload(context: Context, box: ExecdBox): Promise<Response> {
    const form = await context.req.formData().catch((error: unknown) => {
      throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `A file upload must be multipart/form-data: ${(error as Error).message}`);
    });
    const metadata = form.getAll('metadata');
    const files = form.getAll('file');
    if (files.length === 0 || files.length !== metadata.length) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `A file upload carries one metadata part before each file part; got ${metadata.length} metadata and ${files.length} file parts.`);
    for (const [index, file] of files.entries()) {
      const part = metadata[index] as string | Blob;
      const text = typeof part === 'string' ? part : await part.text();
      let meta: { path?: unknown; mode?: unknown; owner?: unknown; group?: unknown };
      try {
        meta = JSON.parse(text) as typeof meta;
      } catch {
        throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `The metadata part of file ${index + 1} is not JSON: ${text.slice(0, 200)}`);
      }
      if (typeof meta.path !== 'string' || meta.path === '') throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `The metadata of file ${index + 1} names no path.`);
      const content = typeof file === 'string' ? Buffer.from(file) : Buffer.from(await file.arrayBuffer());
      await this.withScratchFile(async (local) => {
        await writeFile(local, content);
        await this.provider.upload_file(box.handle, local, meta.path as string);
      });
      await this.applyOwnership(box, meta.path, meta);
    }
    return context.body(null, 200);
  }

  /** The metadata's mode (octal digits, as the SDK sends 755) and owner/group, applied in the box as root. */
  private async applyOwnership(box: ExecdBox, path: string, meta: { mode?: unknown; owner?: unknown; group?: unknown }): Promise<void> {
    const steps: string[] = [];
    if (typeof meta.mode === 'number' && /^[0-7]{3,4}$/.test(String(meta.mode))) steps.push(`chmod ${meta.mode} ${shellQuote(path)}`);
    const owner = typeof meta.owner === 'string' && meta.owner !== '' ? meta.owner : '';
    const group = typeof meta.group === 'string' && meta.group !== '' ? meta.group : '';
    if (owner || group) steps.push(`chown ${shellQuote(`${owner}${group ? `:${group}` : ''}`)} ${shellQuote(path)}`);
    if (steps.length === 0) return;
    const result = await this.provider.exec(box.handle, steps.join(' && '), { user: 'root', timeout_s: 60 });
    if (result.return_code !== 0) throw new OpenSandboxApiError(500, 'UPLOAD_FAILED', `Setting the mode or owner of ${path} in sandbox ${box.handle.sandbox_id} failed: ${result.stderr ?? ''}`);
  }

  private async download(context: Context, box: ExecdBox): Promise<Response> {
    const path = context.req.query('path');
    if (!path) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', 'A file download needs ?path=.');
    for (const refused of ['offset', 'limit']) {
      if (context.req.query(refused) !== undefined) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', `ngym's OpenSandbox-compatible server downloads whole files; ${refused}= is not served.`);
    }
    if (context.req.header('range') !== undefined) throw new OpenSandboxApiError(400, 'INVALID_PARAMETER', "ngym's OpenSandbox-compatible server downloads whole files; a Range header is not served.");
    const content = await this.withScratchFile(async (local) => {
      await this.provider.download_file(box.handle, path, local);
      return readFile(local);
    });
    return new Response(new Uint8Array(content), { status: 200, headers: { 'content-type': 'application/octet-stream' } });
  }

  private async withScratchFile<T>(work: (path: string) => Promise<T>): Promise<T> {
    const path = join(this.scratch, randomUUID());
    try {
      return await work(path);
    } finally {
      await rm(path, { force: true });
    }
  }
}

/** The error event of a result that is not a plain success: a non-zero exit status, a timeout or a box failure. */
function failureEvent(result: SandboxExecResult): ExecdEvent | null {
  const timestamp = Date.now();
  if (result.error_type === 'timeout') return { type: 'error', timestamp, error: { ename: TIMEOUT_ERROR_NAME, evalue: result.stderr ?? 'the command timed out', traceback: [] } };
  if (result.error_type === 'sandbox') return { type: 'error', timestamp, error: { ename: 'SandboxError', evalue: result.stderr ?? 'the sandbox failed', traceback: [] } };
  if (result.return_code === 0) return null;
  // execd reports a non-zero exit status as an error event whose value is the status.
  return { type: 'error', timestamp, error: { ename: 'CommandExecError', evalue: String(result.return_code), traceback: [] } };
}

function statusBody(command: BackgroundCommand): Record<string, unknown> {
  return {
    id: command.id,
    content: command.content,
    running: command.running,
    exit_code: command.exitCode,
    ...(command.error === null ? {} : { error: command.error }),
    started_at: command.startedAt.toISOString(),
    finished_at: command.finishedAt?.toISOString() ?? null,
  };
}
