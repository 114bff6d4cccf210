// Stops at once, saying how to get a supported Node, when this Node is older than package.json's "engines"
// (">=major.minor"). Plain JavaScript that any Node runs: it guards the test commands (`npm test`'s pretest,
// .ci/test-all.sh, vitest.config.ts imports it) and scripts/setup-node.sh asks it whether a Node will do.
import { readFileSync } from 'node:fs';

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const [floorMajor, floorMinor] = (/^>=(\d+)\.(\d+)/.exec(engines.node) ?? []).slice(1).map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (floorMajor === undefined || floorMinor === undefined) throw new Error(`package.json engines.node must read ">=major.minor", not ${JSON.stringify(engines.node)}`);
if (major < floorMajor || (major === floorMajor && minor < floorMinor)) {
  process.stderr.write(
    `ngym needs Node.js ${engines.node} (package.json "engines"); this is Node ${process.version} (${process.execPath}).\n` +
      `Install Node 22 into .node/ and put it first on this shell's PATH with:\n` +
      `  eval "$(npm run --silent setup:node)"\n`,
  );
  process.exit(1);
}
