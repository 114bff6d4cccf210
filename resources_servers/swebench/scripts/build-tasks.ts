/**
 * Builds SWE-bench-format tasks offline from PyPI source distributions (docs/environments/swe.md):
 *
 *   npm run swe:build-tasks -- [--recipes DIR] [--only NAME,...] [--out FILE] [--work DIR]
 *
 * For each recipe (tasks/<project>.json: a package and version whose sdist ships its tests, the test files to run,
 * and mutations, each a find/replace in one source file): the sdist is downloaded with pip and made a git
 * repository; an environment image is built FROM the Python test image (the base image plus python3, a venv and
 * pytest) with the project installed in development mode; each mutation becomes a task image whose /testbed is a
 * one-commit repository of the mutated tree (base_commit). The tests run in fresh boxes with no patch and with
 * the gold patch (the mutation reversed), twice: FAIL_TO_PASS are the tests that fail with the bug and pass with the
 * fix, PASS_TO_PASS those that pass with both, each with the same id and outcome in both gold runs. A task is kept
 * only when, graded as the swebench server grades, the gold patch resolves it and the empty patch does not. Rows are
 * written as SWE-bench rows plus ngym's image, test_cmd and log_parser.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createSandboxProvider, NgymError, type SandboxProvider } from 'ngym';
import * as z from 'zod';
import { evaluate } from '../boxes.ts';
import { gradeSwebenchLog, logsEval } from '../grading/index.ts';
import type { SwebenchInstance } from '../instance.ts';

const SERVER_FOLDER = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE_ROOT = resolve(SERVER_FOLDER, '../..');
const BASE_IMAGE = 'localhost/ngym/base:bookworm';
/** The base image plus python3, a venv on PATH and pytest: every project's image stands on it. */
const PYTHON_IMAGE = 'localhost/ngym/swe-python:bookworm';
const PYTEST_VERSION = '8.3.4';
/** Fixed, so a task's base_commit is the same wherever it is built. */
const COMMIT_ENV = 'GIT_AUTHOR_NAME=ngym GIT_AUTHOR_EMAIL=ngym@localhost GIT_AUTHOR_DATE=2024-01-01T00:00:00Z GIT_COMMITTER_NAME=ngym GIT_COMMITTER_EMAIL=ngym@localhost GIT_COMMITTER_DATE=2024-01-01T00:00:00Z';

const Mutation = z.strictObject({
  file: z.string().min(1),
  find: z.string().min(1),
  replace: z.string(),
  /** What a user would notice: the start of the problem statement (never the fix). */
  symptom: z.string().min(1),
});
const Recipe = z.strictObject({
  package: z.string().min(1),
  version: z.string().min(1),
  /** The test files pytest runs (paths in the sdist). */
  test_files: z.array(z.string().min(1)).min(1),
  /** Test ids left out of the run (pytest --deselect): slow tests no mutation touches, so every run stays fast. */
  deselect: z.array(z.string().min(1)).default([]),
  /** Environment variables of the test run, e.g. PYTHONHASHSEED=0 where test ids are drawn from a set. */
  test_env: z.record(z.string().regex(/^[A-Z_][A-Z0-9_]*$/), z.string()).default({}),
  /** Extra PyPI requirements the tests need, installed in the project's image. */
  test_requirements: z.array(z.string().min(1)).default([]),
  mutations: z.array(Mutation).min(1),
});
type Recipe = z.infer<typeof Recipe>;

const log = (line: string) => process.stderr.write(`[swe build-tasks] ${line}\n`);

function run(command: string, args: string[], options: { cwd?: string } = {}): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => fail(new NgymError('NGYM_INTERNAL', `${command} could not start: ${error.message}`)));
    child.on('close', (code) => (code === 0 ? done(stdout) : fail(new NgymError('NGYM_INTERNAL', `${command} ${args.join(' ')} failed (exit ${code}): ${stderr.trim().slice(-2000)}`))));
  });
}

/** Builds (or finds cached) an image from a Dockerfile with ngym's image builder. */
async function buildImage(context: string, tag: string): Promise<void> {
  const output = await run(process.execPath, [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'sandbox', 'image', 'build', '--dockerfile', join(context, 'Dockerfile'), '--tag', tag]);
  log(`${tag}: ${output.trim().split('\n').at(-1) ?? 'built'}`);
}

/** The sdist, unpacked as a git repository of one commit (the pristine tree). */
async function unpackSdist(recipe: Recipe, work: string): Promise<string> {
  const downloads = join(work, 'sdist');
  await mkdir(downloads, { recursive: true });
  const pip = process.env.NGYM_PIP ?? 'pip';
  await run(pip, ['download', '--no-deps', '--no-binary', ':all:', '--disable-pip-version-check', '-q', '-d', downloads, `${recipe.package}==${recipe.version}`]);
  const archive = (await readdir(downloads)).find((name) => name.endsWith('.tar.gz'));
  if (archive === undefined) throw new NgymError('NGYM_INVALID_REQUEST', `${recipe.package} ${recipe.version} has no .tar.gz source distribution on PyPI`);
  const source = join(work, 'src');
  await rm(source, { recursive: true, force: true });
  await mkdir(source, { recursive: true });
  await run('tar', ['-xzf', join(downloads, archive), '-C', source, '--strip-components=1']);
  for (const testFile of recipe.test_files) await readFile(join(source, testFile)).catch(() => {
    throw new NgymError('NGYM_INVALID_REQUEST', `${recipe.package} ${recipe.version}: the sdist has no test file ${testFile}`);
  });
  await run('git', ['init', '-q'], { cwd: source });
  await run('git', ['add', '-A'], { cwd: source });
  await run('git', ['-c', 'user.name=ngym', '-c', 'user.email=ngym@localhost', 'commit', '-qm', 'sdist'], { cwd: source });
  return source;
}

/** The mutation as a bug patch and its reverse, the gold patch (diffs of the pristine tree; the gold one with a/ and b/ the usual way round). */
async function mutationPatches(source: string, mutation: z.infer<typeof Mutation>, where: string): Promise<{ bug: string; gold: string }> {
  const path = join(source, mutation.file);
  const original = await readFile(path, 'utf8');
  const occurrences = original.split(mutation.find).length - 1;
  if (occurrences !== 1) throw new NgymError('NGYM_INVALID_REQUEST', `${where}: the text to find occurs ${occurrences} times in ${mutation.file} (it must occur once)`);
  await writeFile(path, original.replace(mutation.find, mutation.replace));
  try {
    return { bug: await run('git', ['diff'], { cwd: source }), gold: await run('git', ['diff', '-R', '--src-prefix=b/', '--dst-prefix=a/'], { cwd: source }) };
  } finally {
    await writeFile(path, original);
  }
}

/**
 * The certificate authorities pip trusts on this host, put in a build context: where PyPI is reached through a
 * TLS-intercepting proxy, a box's pip needs them too. Used by the pip steps only (PIP_CERT), then removed.
 */
async function addHostCertificates(context: string): Promise<void> {
  const bundle = process.env.PIP_CERT ?? process.env.SSL_CERT_FILE ?? '/etc/ssl/certs/ca-certificates.crt';
  const text = await readFile(bundle, 'utf8').catch(() => '');
  await writeFile(join(context, 'host-ca.pem'), text);
}
const WITH_HOST_CA = 'PIP_CERT=/tmp/host-ca.pem';

const pythonDockerfile = () => `FROM ${BASE_IMAGE}
COPY host-ca.pem /tmp/host-ca.pem
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv && rm -rf /var/lib/apt/lists/* \\
 && python3 -m venv /opt/venv && if [ -s /tmp/host-ca.pem ]; then export ${WITH_HOST_CA}; fi \\
 && /opt/venv/bin/pip install --no-cache-dir --disable-pip-version-check pytest==${PYTEST_VERSION} && rm -f /tmp/host-ca.pem
ENV PATH=/opt/venv/bin:$PATH PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
`;

const environmentDockerfile = (recipe: Recipe) => `FROM ${PYTHON_IMAGE}
COPY src /testbed
COPY host-ca.pem /tmp/host-ca.pem
WORKDIR /testbed
RUN rm -rf .git && if [ -s /tmp/host-ca.pem ]; then export ${WITH_HOST_CA}; fi \\
 && pip install --no-cache-dir -e .${recipe.test_requirements.map((requirement) => ` '${requirement}'`).join('')} && rm -f /tmp/host-ca.pem
`;

const taskDockerfile = (environmentImage: string, recipe: Recipe) => `FROM ${environmentImage}
COPY bug.patch /tmp/bug.patch
RUN git apply /tmp/bug.patch && rm /tmp/bug.patch && git init -q \\
 && printf '*.egg-info/\\n__pycache__/\\n.pytest_cache/\\nbuild/\\n' >> .git/info/exclude \\
 && git add -A && ${COMMIT_ENV} git commit -qm '${recipe.package} ${recipe.version}'
`;

/** Statuses of every test in a log, as the grader reads them. */
const statusesOf = (instance: SwebenchInstance, log: string) => logsEval({ ...instance, FAIL_TO_PASS: [], PASS_TO_PASS: [] }, log, 'pytest').statuses;

/** A fresh box of the task image, used for one evaluation, then closed. */
async function inFreshBox<T>(provider: SandboxProvider, image: string, use: (handle: Awaited<ReturnType<SandboxProvider['create']>>) => Promise<T>): Promise<T> {
  const handle = await provider.create({ image, resources: { cpu: 1, memory_mib: 2048 } });
  try {
    return await use(handle);
  } finally {
    await provider.close(handle);
  }
}

/** The statement a user would write from the failing tests: the symptom, the tests, the first failure's report. */
function problemStatement(symptom: string, failing: string[], bugLog: string): string {
  const failures = bugLog.split(/^=+ FAILURES =+$/m)[1]?.split(/^=+ short test summary info =+$/m)[0]?.trim() ?? '';
  const excerpt = failures.length > 2500 ? `${failures.slice(0, 2500)}\n...` : failures;
  return [symptom, '', `These tests fail:`, ...failing.map((name) => `- ${name}`), ...(excerpt === '' ? [] : ['', 'pytest reports:', '```', excerpt, '```'])].join('\n');
}

const BASH_TOOL = {
  type: 'function',
  name: 'bash',
  description: "Run a bash command in the task's box, in the repository's folder; its output and exit code come back. Changes to files persist; the graded patch is the repository's git diff.",
  parameters: { type: 'object', properties: { command: { type: 'string', description: 'A bash command, e.g. "grep -rn foo src".' } }, required: ['command'], additionalProperties: false },
  strict: true,
};

async function buildRecipe(provider: SandboxProvider, recipe: Recipe, work: string): Promise<Record<string, unknown>[]> {
  const name = recipe.package.toLowerCase().replaceAll('_', '-');
  const folder = join(work, name);
  const source = await unpackSdist(recipe, folder);
  const environmentImage = `localhost/ngym/swe-env.${name}:${recipe.version}`;
  const environmentContext = join(folder, 'environment');
  await rm(environmentContext, { recursive: true, force: true });
  await mkdir(environmentContext, { recursive: true });
  await run('cp', ['-r', source, join(environmentContext, 'src')]);
  await writeFile(join(environmentContext, 'Dockerfile'), environmentDockerfile(recipe));
  await addHostCertificates(environmentContext);
  await buildImage(environmentContext, environmentImage);

  const environment = Object.entries(recipe.test_env).map(([name, value]) => `${name}='${value}'`);
  const testCommand = [...environment, 'pytest -rA --tb=short -p no:cacheprovider', ...recipe.deselect.map((test) => `--deselect '${test}'`), ...recipe.test_files].join(' ');
  const rows: Record<string, unknown>[] = [];
  for (const [index, mutation] of recipe.mutations.entries()) {
    const instanceId = `pypi__${name}-${index + 1}`;
    const { bug, gold } = await mutationPatches(source, mutation, instanceId);
    const image = `localhost/ngym/sweb.eval.x86_64.${instanceId.replaceAll('__', '_1776_')}:latest`;
    const context = join(folder, `task-${index + 1}`);
    await mkdir(context, { recursive: true });
    await writeFile(join(context, 'bug.patch'), bug);
    await writeFile(join(context, 'Dockerfile'), taskDockerfile(environmentImage, recipe));
    await buildImage(context, image);

    const draft: SwebenchInstance = { instance_id: instanceId, repo: `pypi/${name}`, base_commit: 'HEAD', FAIL_TO_PASS: [], PASS_TO_PASS: [], image, test_cmd: testCommand, log_parser: 'pytest' };
    const baseCommit = await inFreshBox(provider, image, async (handle) => (await provider.exec(handle, 'git rev-parse HEAD')).stdout?.trim() ?? '');
    if (!/^[0-9a-f]{40}$/.test(baseCommit)) throw new NgymError('NGYM_INTERNAL', `${instanceId}: the task image's /testbed has no commit`);
    const instance = { ...draft, base_commit: baseCommit };
    // The gold patch runs twice: a test whose id or outcome differs between the two runs (parameters drawn from a
    // set, whose order follows Python's per-process hash seed; a flaky test) would make the task unverifiable, so
    // only the tests both gold runs agree on are graded.
    const [withBug, withGold, withGoldAgain] = await Promise.all([
      inFreshBox(provider, image, (handle) => evaluate(provider, handle, instance, '', 600)),
      inFreshBox(provider, image, (handle) => evaluate(provider, handle, instance, gold, 600)),
      inFreshBox(provider, image, (handle) => evaluate(provider, handle, instance, gold, 600)),
    ]);
    const before = statusesOf(instance, withBug.log);
    const after = statusesOf(instance, withGold.log);
    const afterAgain = statusesOf(instance, withGoldAgain.log);
    const stable = [...after.keys()].filter((test) => after.get(test) === afterAgain.get(test));
    if (stable.length < after.size) log(`${instanceId}: ${after.size - stable.length} of ${after.size} tests are left ungraded: their id or outcome differs between two runs of the gold patch`);
    const passes = (status: string | undefined) => status === 'PASSED' || status === 'XFAIL';
    const failToPass = stable.filter((test) => passes(after.get(test)) && !passes(before.get(test))).sort();
    const passToPass = stable.filter((test) => passes(after.get(test)) && passes(before.get(test))).sort();
    if (failToPass.length === 0) {
      log(`${instanceId}: skipped: no test fails with the bug and passes with the fix (${before.size} tests ran)`);
      continue;
    }
    const graded = { ...instance, FAIL_TO_PASS: failToPass, PASS_TO_PASS: passToPass };
    const goldReport = gradeSwebenchLog({ instance: graded, log: withGoldAgain.log, modelPatch: gold, parser: 'pytest' });
    const emptyReport = gradeSwebenchLog({ instance: graded, log: withBug.log, modelPatch: '', parser: 'pytest' });
    if (!goldReport.resolved || emptyReport.resolved) {
      log(`${instanceId}: skipped: validation failed (gold resolved: ${goldReport.resolved}, empty resolved: ${emptyReport.resolved})`);
      continue;
    }
    const statement = problemStatement(mutation.symptom, failToPass, withBug.log);
    rows.push({
      repo: graded.repo,
      instance_id: instanceId,
      base_commit: baseCommit,
      patch: gold,
      test_patch: '',
      problem_statement: statement,
      hints_text: '',
      created_at: '2024-01-01T00:00:00Z',
      version: recipe.version,
      FAIL_TO_PASS: JSON.stringify(failToPass),
      PASS_TO_PASS: JSON.stringify(passToPass),
      environment_setup_commit: baseCommit,
      difficulty: '<15 min fix',
      image,
      test_cmd: testCommand,
      log_parser: 'pytest',
      responses_create_params: { input: [{ role: 'user', content: statement }], tools: [BASH_TOOL] },
      subset: 'ngym-pypi',
      split: 'test',
    });
    log(`${instanceId}: valid (${failToPass.length} FAIL_TO_PASS, ${passToPass.length} PASS_TO_PASS; tests ${withBug.seconds.toFixed(1)} s)`);
  }
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      recipes: { type: 'string', default: join(SERVER_FOLDER, 'tasks') },
      only: { type: 'string' },
      out: { type: 'string', default: join(SERVER_FOLDER, 'data', 'pypi_tasks.jsonl') },
      work: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${readFileHelp()}\n`);
    return;
  }
  const only = values.only?.split(',').filter((name) => name !== '');
  const files = (await readdir(values.recipes)).filter((file) => file.endsWith('.json') && (only === undefined || only.includes(file.replace(/\.json$/, '')))).sort();
  if (files.length === 0) throw new NgymError('NGYM_INVALID_REQUEST', `No recipes (*.json) in ${values.recipes}${only === undefined ? '' : ` named ${only.join(', ')}`}`);
  const work = values.work ?? (await mkdtemp(join(tmpdir(), 'ngym-swe-tasks-')));
  const pythonContext = join(work, 'python');
  await mkdir(pythonContext, { recursive: true });
  await writeFile(join(pythonContext, 'Dockerfile'), pythonDockerfile());
  await addHostCertificates(pythonContext);
  await run(process.execPath, [join(PACKAGE_ROOT, 'bin', 'ngym.js'), 'sandbox', 'image', 'build', '--base']);
  await buildImage(pythonContext, PYTHON_IMAGE);
  const provider = createSandboxProvider({ docker: {} });
  const rows: Record<string, unknown>[] = [];
  try {
    for (const file of files) {
      const parsed = Recipe.safeParse(JSON.parse(await readFile(join(values.recipes, file), 'utf8')));
      if (!parsed.success) throw new NgymError('NGYM_INVALID_REQUEST', `${file}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
      log(`${parsed.data.package} ${parsed.data.version}: ${parsed.data.mutations.length} mutations`);
      rows.push(...(await buildRecipe(provider, parsed.data, work)));
    }
  } finally {
    await provider.aclose();
    if (values.work === undefined) await rm(work, { recursive: true, force: true });
  }
  // With --only, the other projects' rows already in --out stay: one project is rebuilt without rerunning all.
  const rebuilt = new Set(rows.map((row) => row.repo));
  const kept = only === undefined ? [] : (await readJsonl(values.out)).filter((row) => !rebuilt.has(row.repo));
  const written = [...kept, ...rows].sort((first, second) => String(first.repo).localeCompare(String(second.repo)));
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(values.out, written.map((row) => JSON.stringify(row)).join('\n') + (written.length > 0 ? '\n' : ''));
  log(`${rows.length} valid tasks from ${files.length} projects written to ${values.out}${kept.length > 0 ? ` (with the ${kept.length} tasks of other projects it held)` : ''}`);
}

/** The rows of a JSONL file; none when it does not exist. */
async function readJsonl(path: string): Promise<Record<string, unknown>[]> {
  const text = await readFile(path, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '';
    throw error;
  });
  return text.split('\n').filter((line) => line.trim() !== '').map((line, index) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch (error) {
      throw new NgymError('NGYM_INVALID_REQUEST', `${path} line ${index + 1} is not JSON (${(error as Error).message}); fix or delete the file`);
    }
  });
}

function readFileHelp(): string {
  return `Usage: npm run swe:build-tasks -- [--recipes DIR] [--only NAME,...] [--out FILE] [--work DIR]

Builds SWE-bench-format tasks from PyPI source distributions: one image per project (the sdist installed in
development mode FROM ${PYTHON_IMAGE}), one per task (a mutation committed as /testbed's only commit), each
validated (gold patch resolves, empty patch does not). With --only, the other projects' rows already in --out are
kept. Needs the container engine (DOCKER_HOST; npm run setup:containers), pip and PyPI. Recipes: ${join(SERVER_FOLDER, 'tasks')}/*.json. See docs/environments/swe.md.`;
}

main().catch((error: unknown) => {
  process.stderr.write(`swe build-tasks: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
