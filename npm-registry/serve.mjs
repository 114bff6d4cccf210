// A Verdaccio npm registry for the environment-package tests: `node npm-registry/serve.mjs <folder>` keeps its
// packages and users in <folder>, listens on a port the OS picks on 127.0.0.1, prints {"port": N} once it
// listens, and ends when its standard input closes (the test that started it ended, however it ended) or on
// SIGTERM. No uplink: only what is published to it can be installed from it.
import { join } from 'node:path';
import { runServer } from 'verdaccio';

const folder = process.argv[2];
if (folder === undefined) {
  process.stderr.write('Usage: node npm-registry/serve.mjs <storage folder>\n');
  process.exit(2);
}
const app = await runServer({
  self_path: folder,
  storage: join(folder, 'storage'),
  auth: { htpasswd: { file: join(folder, 'htpasswd'), max_users: 100 } },
  uplinks: {},
  packages: { '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' } },
  log: { type: 'stdout', format: 'pretty', level: 'error' },
  web: { enable: false },
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
const stop = () => {
  server.close(() => process.exit(0));
  // Keep-alive connections of npm clients would hold close() open.
  setTimeout(() => process.exit(0), 2000).unref();
};
process.stdin.on('end', stop).resume();
process.on('SIGTERM', stop);
