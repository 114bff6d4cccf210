/**
 * A local stand-in of the Hugging Face Hub (for `HF_ENDPOINT`) serving dataset repositories from a folder:
 * `<root>/<org>/<name>/<files>`. It answers what `huggingface_hub` and `datasets.load_dataset` ask (file
 * downloads by `resolve`, the repository's info, its file tree, `paths-info`) with the Hub's headers and error
 * codes, so a prepare script's real download path runs against small datasets a test writes. Every request is
 * recorded.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, relative } from 'node:path';

export interface HubStandIn {
  /** The value for HF_ENDPOINT. */
  url: string;
  /** `METHOD path` of every request, in order. */
  requests: string[];
  close(): Promise<void>;
}

const sha1 = (text: string | Buffer) => createHash('sha1').update(text).digest('hex');

function filesOf(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(directory, join(entry.parentPath, entry.name)))
    .sort();
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function notFound(response: ServerResponse, code: 'RepoNotFound' | 'EntryNotFound' | 'RevisionNotFound', message: string): void {
  sendJson(response, 404, { error: message }, { 'x-error-code': code, 'x-error-message': message });
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text;
}

class Repository {
  readonly commit: string;
  constructor(
    readonly id: string,
    readonly directory: string,
  ) {
    this.commit = sha1(`${id}\n${filesOf(directory).map((file) => `${file}:${sha1(readFileSync(join(directory, file)))}`).join('\n')}`);
  }

  entry(path: string): { type: 'file' | 'directory'; path: string; size: number; oid: string } | undefined {
    const full = join(this.directory, path);
    if (!full.startsWith(this.directory) || !existsSync(full)) return undefined;
    if (statSync(full).isDirectory()) return { type: 'directory', path, size: 0, oid: sha1(path) };
    const content = readFileSync(full);
    return { type: 'file', path, size: content.length, oid: sha1(content) };
  }

  info(): Record<string, unknown> {
    return {
      _id: this.commit.slice(0, 24),
      id: this.id,
      author: this.id.split('/')[0],
      sha: this.commit,
      private: false,
      gated: false,
      disabled: false,
      downloads: 0,
      likes: 0,
      tags: [],
      cardData: {},
      lastModified: '2026-01-01T00:00:00.000Z',
      createdAt: '2026-01-01T00:00:00.000Z',
      siblings: filesOf(this.directory).map((rfilename) => ({ rfilename })),
    };
  }

  tree(path: string, recursive: boolean) {
    const base = join(this.directory, path);
    const entries = readdirSync(base, { recursive, withFileTypes: true }).map((entry) => relative(this.directory, join(entry.parentPath, entry.name)));
    return entries.sort().map((entry) => this.entry(entry));
  }
}

/** Serves the repositories under `root` (`<root>/<org>/<name>/...`) on a free loopback port. */
export async function startHubStandIn(root: string): Promise<HubStandIn> {
  const requests: string[] = [];
  const repository = (org: string, name: string) => {
    const directory = join(root, org, name);
    return existsSync(directory) && statSync(directory).isDirectory() ? new Repository(`${org}/${name}`, directory) : undefined;
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://hub');
    const segments = url.pathname.split('/').filter((segment) => segment !== '').map(decodeURIComponent);
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    // /datasets/<org>/<name>/resolve/<revision>/<path...>
    if (segments[0] === 'datasets' && segments[3] === 'resolve') {
      const repo = repository(segments[1] as string, segments[2] as string);
      if (repo === undefined) return notFound(response, 'RepoNotFound', `Repository ${segments[1]}/${segments[2]} not found`);
      const path = segments.slice(5).join('/');
      const entry = repo.entry(path);
      if (entry === undefined || entry.type !== 'file') return notFound(response, 'EntryNotFound', `${path} does not exist on revision ${segments[4]}`);
      const content = readFileSync(join(repo.directory, path));
      const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
      const start = range === null ? 0 : Math.min(Number(range[1]), content.length);
      const headers = { 'x-repo-commit': repo.commit, etag: `"${entry.oid}"`, 'content-length': String(content.length - start), 'accept-ranges': 'bytes' };
      if (range === null) response.writeHead(200, headers);
      else response.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${content.length - 1}/${content.length}` });
      response.end(request.method === 'HEAD' ? undefined : content.subarray(start));
      return;
    }
    // /api/datasets/<org>/<name>[/revision/<rev> | /tree/<rev>/<path...> | /paths-info/<rev>]
    if (segments[0] === 'api' && segments[1] === 'datasets' && segments.length >= 4) {
      const repo = repository(segments[2] as string, segments[3] as string);
      if (repo === undefined) return notFound(response, 'RepoNotFound', `Repository ${segments[2]}/${segments[3]} not found`);
      const action = segments[4];
      if (action === undefined || action === 'revision') return sendJson(response, 200, repo.info());
      if (action === 'tree') {
        const path = segments.slice(6).join('/');
        const entry = path === '' ? { type: 'directory' } : repo.entry(path);
        if (entry?.type !== 'directory') return notFound(response, 'EntryNotFound', `${path} is not a folder`);
        const recursive = ['true', '1'].includes(url.searchParams.get('recursive') ?? '');
        return sendJson(response, 200, repo.tree(path, recursive));
      }
      if (action === 'paths-info') {
        const body = await bodyOf(request);
        const form = new URLSearchParams(body);
        const paths: string[] = (request.headers['content-type'] ?? '').includes('json') ? (JSON.parse(body) as { paths: string[] }).paths : form.getAll('paths');
        return sendJson(response, 200, paths.map((path) => repo.entry(path)).filter((entry) => entry !== undefined));
      }
    }
    sendJson(response, 404, { error: `the Hub stand-in does not serve ${url.pathname}` });
  };
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => sendJson(response, 500, { error: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
