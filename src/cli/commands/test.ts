/**
 * `ngym test` (alias `ng_test`) and `ngym test-all` (alias `ng_test_all`): run a server folder's vitest
 * tests, then, for resources servers, check its data folder as upstream's `ng_test` does.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { SERVER_TYPES } from '../../protocol/server-types.ts';
import { environmentDataProblems } from '../../data/environment-data.ts';
import { NgymError } from '../../errors.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { type CliCommand, readParameters } from '../command.ts';

const TEST_FILE = /\.(test|spec)\.(c|m)?[jt]sx?$/;
/** vitest's "no tests" outcome, reported with pytest's code as upstream does. */
const NO_TESTS_EXIT_CODE = 5;

export function testFiles(directory: string): string[] {
  return (readdirSync(directory, { recursive: true }) as string[]).filter(
    (path) => TEST_FILE.test(path) && !path.split(sep).includes('node_modules'),
  );
}

/** The vitest CLI of the project in `cwd`, else the one ngym was installed with. */
function vitestEntry(cwd: string): string {
  for (const base of [cwd, PACKAGE_ROOT]) {
    try {
      const packageJson = createRequire(join(base, 'package.json')).resolve('vitest/package.json');
      return join(dirname(packageJson), 'vitest.mjs');
    } catch {
      // try the next base
    }
  }
  throw new NgymError('NGYM_USAGE', 'vitest is not installed: run `npm install --save-dev vitest` in your project.');
}

/** Runs the folder's tests with vitest; resolves to vitest's exit code, or NO_TESTS_EXIT_CODE. */
async function runServerTests(directory: string, cwd: string): Promise<number> {
  if (testFiles(directory).length === 0) return NO_TESTS_EXIT_CODE;
  // A vitest started from inside a vitest run must not inherit that run's worker variables.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
  const child = spawn(process.execPath, [vitestEntry(cwd), 'run', `${directory}${sep}`], { cwd, env, stdio: 'inherit' });
  return await new Promise<number>((resolveCode, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolveCode(code ?? (signal === null ? 1 : 128)));
  });
}

/** A server folder given as `<server type>/<name>`, relative to cwd. */
function serverDirectory(entrypoint: string, cwd: string): { directory: string; display: string; serverType: string } {
  const parts = entrypoint.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
  if (parts.length !== 2 || !(SERVER_TYPES as readonly string[]).includes(parts[0] as string)) {
    throw new NgymError('NGYM_USAGE', `+entrypoint must be <server type>/<name> relative to the current folder, with a server type of ${SERVER_TYPES.join(', ')}; got '${entrypoint}'.`);
  }
  const directory = resolve(cwd, ...parts);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) throw new NgymError('NGYM_USAGE', `No folder ${parts.join('/')} in ${cwd}.`);
  return { directory, display: parts.join('/'), serverType: parts[0] as string };
}

const write = (text: string) => process.stdout.write(text);

const TestParameters = z.object({
  entrypoint: z.string().min(1).describe('The server folder, <server type>/<name>.'),
  should_validate_data: z.boolean().default(true).describe("Check a resources server's data/ folder after the tests."),
});

export const testCommand: CliCommand = {
  name: 'test',
  summary: "Run a server's tests (vitest), then check a resources server's data folder.",
  description: `
Runs the vitest tests in <entrypoint> (a folder such as resources_servers/my_env, relative to the
current folder). For a resources server it then checks, as upstream ng_test does, that data/ holds
example.jsonl with 5 valid rows, example_metrics.json with the metrics of exactly those rows (ngym
prepare-data +mode=example_validation), no *conflict* file, and example_rollouts.jsonl with 5 rollouts.
Exit code: vitest's (5 when the folder has no tests), else 1 if the data check fails.

Example:
  ngym test +entrypoint=resources_servers/my_env
  ngym test +entrypoint=resources_servers/my_env +should_validate_data=false`,
  parameters: TestParameters,
  async run(args) {
    const cwd = process.cwd();
    const parameters = readParameters(loadGlobalConfig({ overrides: args, envYamlPath: null }), TestParameters);
    const server = serverDirectory(parameters.entrypoint, cwd);
    const code = await runServerTests(server.directory, cwd);
    if (code !== 0) {
      if (code === NO_TESTS_EXIT_CODE) process.stderr.write(`No test files (*.test.ts) found in ${server.display}.\n`);
      process.stderr.write(`You can run detailed tests via \`npx vitest run ${server.display}/\`.\n`);
      return code;
    }
    if (!parameters.should_validate_data || server.serverType !== 'resources_servers') return 0;
    const problems = await environmentDataProblems(server.directory, server.display);
    if (problems.length > 0) {
      process.stderr.write(`Data validation failed for ${server.display}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
      return 1;
    }
    write(`The data for ${server.display} has been successfully validated!\n`);
    return 0;
  },
};

/** The server folders under `cwd` (`<server type>/<name>`), and those with a README.md, which test-all tests. */
export function serverFolders(cwd: string): { candidates: string[]; withReadme: string[] } {
  const candidates = SERVER_TYPES.flatMap((serverType) => {
    const root = join(cwd, serverType);
    if (!existsSync(root)) return [];
    return readdirSync(root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.includes('pycache'))
      .map((entry) => `${serverType}/${entry.name}`);
  }).sort();
  return { candidates, withReadme: candidates.filter((candidate) => existsSync(join(cwd, candidate, 'README.md'))) };
}

const TestAllParameters = z.object({
  fail_on_total_and_test_mismatch: z.boolean().default(false).describe('Also fail when a server folder has no README.md (and so was not tested).'),
});

function percent(count: number, total: number): string {
  return `${count} / ${total} (${total === 0 ? '0.00' : ((100 * count) / total).toFixed(2)}%)`;
}

export const testAllCommand: CliCommand = {
  name: 'test-all',
  summary: 'Run `ngym test` on every server folder that has a README.md, and summarize.',
  description: `
Looks at resources_servers/*, responses_api_agents/* and responses_api_models/* under the current
folder, keeps those with a README.md, and runs each one's tests and (for resources servers) the data
check. Prints which passed, failed, have no tests, or failed data validation, with the command to
rerun each. Exit code 1 if anything failed or has no tests.

Example:
  ngym test-all +fail_on_total_and_test_mismatch=true`,
  parameters: TestAllParameters,
  async run(args) {
    const cwd = process.cwd();
    const parameters = readParameters(loadGlobalConfig({ overrides: args, envYamlPath: null }), TestAllParameters);
    const { candidates, withReadme } = serverFolders(cwd);
    write(`Found ${candidates.length} server folders, ${withReadme.length} with a README.md:\n${withReadme.map((dir) => `- ${dir}`).join('\n')}\n\n`);
    const passed: string[] = [];
    const failed: string[] = [];
    const missing: string[] = [];
    const dataFailed: string[] = [];
    for (const display of withReadme) {
      write(`\n=== ${display} ===\n`);
      const directory = join(cwd, display);
      const code = await runServerTests(directory, cwd);
      if (code === 0) passed.push(display);
      else if (code === NO_TESTS_EXIT_CODE) missing.push(display);
      else failed.push(display);
      if (display.startsWith('resources_servers/')) {
        const problems = await environmentDataProblems(directory, display);
        if (problems.length > 0) {
          dataFailed.push(display);
          write(`Data validation failed for ${display}:\n${problems.map((problem) => `  - ${problem}`).join('\n')}\n`);
        }
      }
    }
    const total = withReadme.length;
    const section = (heading: string, dirs: string[], hint: (dir: string) => string) =>
      write(`${heading}: ${percent(dirs.length, total)}\n${dirs.map((dir) => `- ${dir}: ${hint(dir)}`).join('\n')}${dirs.length > 0 ? '\n' : ''}`);
    write('\n\nSummary\n-------\n');
    section('Passed', passed, () => 'ok');
    section('Failed', failed, (dir) => `rerun with \`ngym test +entrypoint=${dir}\``);
    section('No tests', missing, (dir) => `add *.test.ts files to ${dir}`);
    section('Data validation failed', dataFailed, (dir) => `rerun with \`ngym test +entrypoint=${dir}\` to see the problems`);
    const mismatch = candidates.length !== total;
    if (parameters.fail_on_total_and_test_mismatch && mismatch) {
      const untested = candidates.filter((candidate) => !withReadme.includes(candidate));
      process.stderr.write(`These server folders have no README.md and were not tested: ${untested.join(', ')}\n`);
      return 1;
    }
    return failed.length + missing.length + dataFailed.length > 0 ? 1 : 0;
  },
};
