/**
 * A stand-in for the HTTPS sites that some of upstream's prepare scripts download from besides the Hub (GitHub's
 * raw files, a university's tarball): a forward proxy that accepts `CONNECT` for the given hosts, ends TLS with a
 * throwaway certificate made for them, and serves the files a test gives by URL. A Python process reaches it with
 * `HTTPS_PROXY` and trusts it with `SSL_CERT_FILE` (`environment`), so its own `urllib` download path runs
 * unchanged. Needs the `openssl` command; every request is recorded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, TLSSocket } from 'node:tls';

export interface HttpsStandIn {
  /** HTTPS_PROXY and SSL_CERT_FILE for the process that downloads. */
  environment: Record<string, string>;
  /** `GET https://host/path` of every request, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** A self-signed certificate for `hosts` (also its own authority), made with the openssl command. */
function certificateFor(hosts: readonly string[], directory: string): { key: string; cert: string; certPath: string } {
  const keyPath = join(directory, 'key.pem');
  const certPath = join(directory, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=ngym https stand-in',
      '-keyout', keyPath, '-out', certPath,
      '-addext', `subjectAltName=${hosts.map((host) => `DNS:${host}`).join(',')}`,
      '-addext', 'basicConstraints=critical,CA:TRUE',
      '-addext', 'keyUsage=critical,digitalSignature,keyEncipherment,keyCertSign',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), certPath };
}

/** Serves `files` (full https URL to content) through a CONNECT proxy on a free loopback port. */
export async function startHttpsStandIn(files: ReadonlyMap<string, string | Buffer>): Promise<HttpsStandIn> {
  const hosts = [...new Set([...files.keys()].map((url) => new URL(url).hostname))];
  const directory = mkdtempSync(join(tmpdir(), 'ngym-https-stand-in-'));
  const { key, cert, certPath } = certificateFor(hosts, directory);
  const context = createSecureContext({ key, cert });
  const requests: string[] = [];
  // The decrypted side: plain HTTP requests for https://<host><path>.
  const sites = createHttpServer((request, response) => {
    const url = `https://${request.headers.host}${request.url}`;
    requests.push(`${request.method} ${url}`);
    const content = files.get(url);
    if (content === undefined) response.writeHead(404, { 'content-type': 'text/plain' }).end(`the HTTPS stand-in has no ${url}\n`);
    else response.writeHead(200, { 'content-length': String(Buffer.byteLength(content)) }).end(request.method === 'HEAD' ? undefined : content);
  });
  const sockets = new Set<Socket>();
  const proxy: Server = createHttpServer((_request, response) => response.writeHead(405).end('the HTTPS stand-in only tunnels CONNECT\n'));
  proxy.on('connect', (request, socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const host = (request.url ?? '').split(':')[0] ?? '';
    if (!hosts.includes(host)) {
      requests.push(`CONNECT ${request.url} (refused)`);
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      return;
    }
    socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    sites.emit('connection', new TLSSocket(socket, { isServer: true, secureContext: context }));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    environment: { HTTPS_PROXY: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, SSL_CERT_FILE: certPath },
    requests,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      sites.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
