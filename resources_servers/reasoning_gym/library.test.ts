/**
 * Every task of the reasoning-gym library, scored by ngym's /verify and by the library's own score_answer
 * (through upstream's server rule, scripts/reference_scores.py): a few rows per task made by
 * create_dataset.py, each with its right answer and two wrong ones. Needs the venv of `npm run setup:python`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { assistantMessage, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import { LIBRARY_SCRIPTS } from './library.ts';

const http = sharedHttpClient();
const PYTHON = join(process.env.NGYM_PYTHON_VENV || join(PACKAGE_ROOT, '.venv'), 'bin', 'python');
const hasLibrary = existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import reasoning_gym']).status === 0;
// A longer run: REASONING_GYM_PARITY_ROWS=200 REASONING_GYM_PARITY_TASKS=mini_sudoku,word_sorting npx vitest run <this file>
const ROWS_PER_TASK = Number(process.env.REASONING_GYM_PARITY_ROWS ?? 2);
const ONLY_TASKS = process.env.REASONING_GYM_PARITY_TASKS ?? '';

interface Case {
  task: string;
  kind: string;
  row: Record<string, unknown>;
  text: string;
  score: number;
}

const serverConfig = (extra: Record<string, unknown> = {}) => ({
  reasoning_gym: { resources_servers: { reasoning_gym: { entrypoint: 'app.ts', domain: 'knowledge', ...extra } } },
});

async function verify(gym: InProcessGym, row: Record<string, unknown>, text: string) {
  const response = await http.request(gym.url('reasoning_gym', '/verify'), {
    body: { responses_create_params: { input: 'q' }, response: modelResponse([assistantMessage(text)]), ...row },
  });
  return { status: response.status, text: response.text, body: response.status === 200 ? response.json<Record<string, any>>() : undefined };
}

describe.skipIf(!hasLibrary)('reasoning_gym: every task of the reasoning-gym library', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: serverConfig() });
  });
  afterAll(async () => gym?.close());

  it('scores right and wrong answers of every task exactly as the library does', { timeout: 600_000 }, async () => {
    const made = spawnSync(PYTHON, [join(LIBRARY_SCRIPTS, 'reference_scores.py'), '--size', String(ROWS_PER_TASK), '--seed', '7', '--tasks', ONLY_TASKS], {
      cwd: LIBRARY_SCRIPTS,
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    expect(made.status, made.stderr.slice(-2000)).toBe(0);
    const cases = made.stdout.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as Case);
    const tasks = new Map<string, { cases: number; identical: number; mismatches: string[] }>();
    const started = performance.now();
    for (const item of cases) {
      const tally = tasks.get(item.task) ?? { cases: 0, identical: 0, mismatches: [] };
      tasks.set(item.task, tally);
      tally.cases++;
      const result = await verify(gym, item.row, item.text);
      if (result.status === 200 && result.body?.reward === item.score && result.body?.score === item.score) tally.identical++;
      else tally.mismatches.push(`${item.kind}: library ${item.score}, ngym ${result.status === 200 ? result.body?.reward : `${result.status} ${result.text.slice(0, 200)}`}`);
    }
    const identicalTasks = [...tasks.values()].filter((tally) => tally.identical === tally.cases).length;
    const failures = [...tasks].filter(([, tally]) => tally.mismatches.length > 0).map(([task, tally]) => `${task}: ${tally.mismatches.join('; ')}`);
    const rightCredited = cases.filter((item) => item.kind === 'right' && item.score > 0).length;
    process.stdout.write(
      `reasoning_gym: ${tasks.size} library tasks supported, ${identicalTasks} scored identically to score_answer ` +
        `(${cases.length} cases: ${ROWS_PER_TASK} rows per task x right/wrong/near-miss answers; ${rightCredited} right answers scored > 0; ` +
        `verified in ${((performance.now() - started) / 1000).toFixed(1)} s)\n`,
    );
    expect(failures).toEqual([]);
    // The library has 105 tasks besides its composite; a much smaller count means rows went missing.
    if (ONLY_TASKS === '') expect(tasks.size).toBeGreaterThanOrEqual(100);
    // The right answer earns credit for every task but boxnet and rush_hour (answer null and no stored solution).
    if (ONLY_TASKS === '') expect(rightCredited).toBeGreaterThan(0.9 * (cases.length / 3));
  });

  it('rejects a task the library does not have with a 422 naming it, unless configured to score it 0', async () => {
    const row = { question: 'q', answer: 'x', metadata: { source_dataset: 'no_such_task' } };
    const rejected = await verify(gym, row, 'x');
    expect(rejected.status).toBe(422);
    expect(rejected.text).toContain("cannot score task 'no_such_task'");
    const lenient = await startInProcessGym({ config: serverConfig({ score_unknown_tasks_as_zero: true }) });
    try {
      expect((await verify(lenient, row, 'x')).body).toMatchObject({ reward: 0, task_name: 'no_such_task' });
    } finally {
      await lenient.close();
    }
  });

  it('fails the verify a dying worker was scoring, never scoring it, and starts a new worker for the next', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rg-worker-'));
    // The first interpreter start answers the handshake and dies on its first request; later starts are the real one.
    const python = join(dir, 'python');
    writeFileSync(
      python,
      `#!/bin/sh\nif [ ! -e "${dir}/crashed" ]; then touch "${dir}/crashed"; exec "${PYTHON}" -c 'import json,sys; print(json.dumps({"ready": True, "tasks": ["chain_sum"]}), flush=True); sys.stdin.readline(); sys.exit(9)'; fi\nexec "${PYTHON}" "$@"\n`,
    );
    chmodSync(python, 0o755);
    const crashing = await startInProcessGym({ config: serverConfig({ library_python: python }) });
    try {
      const row = { question: '2 + 3 =', answer: '5', metadata: { source_dataset: 'chain_sum', source_index: 0 } };
      const first = await verify(crashing, row, '<answer>5</answer>');
      expect(first.status).toBe(500);
      expect(first.text).toContain('library worker died (code 9)');
      const second = await verify(crashing, row, '<answer>5</answer>');
      expect(second.status, second.text).toBe(200);
      expect(second.body).toMatchObject({ reward: 1, task_name: 'chain_sum' });
      expect(readFileSync(join(dir, 'crashed'), 'utf8')).toBe('');
    } finally {
      await crashing.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the missing virtual environment and npm run setup:python when there is no interpreter', async () => {
    const missing = await startInProcessGym({ config: serverConfig() });
    const previous = process.env.NGYM_PYTHON_VENV;
    process.env.NGYM_PYTHON_VENV = join(tmpdir(), 'ngym-no-such-venv');
    try {
      const result = await verify(missing, { question: 'q', answer: '5', metadata: { source_dataset: 'chain_sum' } }, '5');
      expect(result.status).not.toBe(200);
      expect(result.text).toContain('npm run setup:python');
      expect(result.text).toContain('ngym-no-such-venv');
    } finally {
      if (previous === undefined) delete process.env.NGYM_PYTHON_VENV;
      else process.env.NGYM_PYTHON_VENV = previous;
      await missing.close();
    }
  });
});

describe.skipIf(hasLibrary)('reasoning_gym: every task of the reasoning-gym library', () => {
  it.skip(`skipped: no Python with reasoning-gym at ${PYTHON}; run \`npm run setup:python\``, () => {});
});
