import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, CookieJar, sharedHttpClient } from 'ngym';
import { assistantMessage, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import { EXAMPLE_TASKS, exampleRows } from './example-data.ts';

const http = sharedHttpClient();
const unavailable = bubblewrapUnavailableReason();
const workspaces = mkdtempSync(join(tmpdir(), 'ngym-coding-tasks-test-'));
afterAll(() => rmSync(workspaces, { recursive: true, force: true }));

/** sum_to: a Python task whose bug is `range(1, n)`; clamp: a JavaScript task with swapped bounds. */
const rows = exampleRows() as Record<string, any>[];
const sumTo = rows[0] as Record<string, any>;
const clamp = rows[4] as Record<string, any>;
const fixedSumTo = (EXAMPLE_TASKS[0] as (typeof EXAMPLE_TASKS)[number]).written.content;
const response = modelResponse([assistantMessage('done')]);

describe.skipIf(unavailable !== null)('coding_tasks', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      config: {
        coding_tasks: {
          resources_servers: {
            // Tests end after 5 s: enough for a loaded machine, short enough for the timeout test.
            coding_tasks: { entrypoint: 'app.ts', domain: 'coding', workspaces_dir: workspaces, test_timeout_seconds: 5, command_timeout_seconds: 2, sandbox: { pool_size: 2 } },
          },
        },
      },
    });
  });
  afterAll(async () => gym?.close());

  const call = (path: string, body: unknown, cookies?: CookieJar) => http.request(gym.url('coding_tasks', path), { body, cookies });
  async function seed(row: Record<string, any>) {
    const reply = await call('/seed_session', row);
    expect(reply.status, reply.text).toBe(200);
    return { cookies: reply.cookies, workspacePath: reply.json<{ workspace_path: string }>().workspace_path };
  }
  const verify = (row: Record<string, any>, cookies: CookieJar) => call('/verify', { ...row, response }, cookies);

  it('seeds a workspace per session holding the task files, and names it in workspace_path', async () => {
    const first = await seed(sumTo);
    const second = await seed(sumTo);
    expect(first.workspacePath).not.toBe(second.workspacePath);
    expect(first.workspacePath.startsWith(workspaces)).toBe(true);
    expect(readFileSync(join(first.workspacePath, 'sum_to.py'), 'utf8')).toContain('range(1, n)');
    expect((await call('/list_files', {}, first.cookies)).json()).toEqual({ files: ['sum_to.py', 'test_sum_to.py'] });
    await call('/write_file', { path: 'sum_to.py', content: 'changed' }, first.cookies);
    expect((await call('/read_file', { path: 'sum_to.py' }, second.cookies)).json()).toEqual({ content: sumTo.files[0].content });
  });

  it('refuses paths outside the workspace with an error naming the path', async () => {
    const { cookies } = await seed(sumTo);
    const escaping = await call('/read_file', { path: '../../etc/passwd' }, cookies);
    expect(escaping.status).toBe(400);
    expect(escaping.text).toContain('The path \\"../../etc/passwd\\" is outside the workspace');
    const absolute = await call('/write_file', { path: '/tmp/planted.py', content: 'x' }, cookies);
    expect(absolute.status).toBe(400);
    expect(absolute.text).toContain('is absolute');
    expect(existsSync('/tmp/planted.py')).toBe(false);
  });

  it('refuses a tool call or verify of a session that was never seeded', async () => {
    const reply = await call('/read_file', { path: 'sum_to.py' }, new CookieJar());
    expect(reply.status).toBe(400);
    expect(reply.text).toContain('This session has no workspace: call /seed_session');
    expect((await verify(sumTo, new CookieJar())).status).toBe(400);
  });

  it('refuses a row whose test_files are not among its files (422 naming the field)', async () => {
    const reply = await call('/seed_session', { ...sumTo, test_files: ['test_other.py'] });
    expect(reply.status).toBe(422);
    expect(reply.text).toContain('test_files');
    expect(reply.text).toContain('is not among the task');
  });

  it('runs commands in the sandbox on the workspace and keeps the files they change', async () => {
    const { cookies, workspacePath } = await seed(sumTo);
    const reply = await call('/run_command', { command: "sed -i 's/range(1, n)/range(1, n + 1)/' sum_to.py && ls / && cat /etc/shadow" }, cookies);
    const outcome = reply.json<{ exit_code: number; output: string }>();
    // The box shows nothing of the host: no project, no /etc/shadow.
    expect(outcome.output).not.toMatch(/\bhome\b|\broot\b/);
    expect(outcome.exit_code).not.toBe(0);
    expect(readFileSync(join(workspacePath, 'sum_to.py'), 'utf8')).toContain('range(1, n + 1)');
    const tests = (await call('/run_tests', {}, cookies)).json<Record<string, any>>();
    expect(tests).toMatchObject({ passed: true, status: 'exited', exit_code: 0, restored_test_files: [] });
    expect(tests.output).toMatch(/Ran 2 tests/);
  });

  it('reports a command that runs too long as timed out, to the model', async () => {
    const { cookies } = await seed(sumTo);
    const outcome = (await call('/run_command', { command: 'echo started; sleep 60' }, cookies)).json();
    expect(outcome).toEqual({ exit_code: null, timed_out: true, output: 'started\n' });
  });

  it('leaves the workspace unchanged when a command leaves more than the sandbox can report, and says why', async () => {
    const { cookies, workspacePath } = await seed(sumTo);
    const outcome = (await call('/run_command', { command: 'head -c 2000000 /dev/zero > big.bin' }, cookies)).json<Record<string, any>>();
    expect(outcome).toMatchObject({ exit_code: null, timed_out: false });
    expect(outcome.output).toContain('the run ended with output_limit');
    expect(readdirSync(workspacePath).sort()).toEqual(['sum_to.py', 'test_sum_to.py']);
  });

  it('verify gives 0 to the unfixed workspace and 1 to the fixed one, then removes the workspace', async () => {
    const unfixed = await seed(sumTo);
    const failed = (await verify(sumTo, unfixed.cookies)).json<Record<string, any>>();
    expect(failed).toMatchObject({ reward: 0, tests_passed: false, test_status: 'exited', test_exit_code: 1, restored_test_files: [], task_id: 'sum_to_off_by_one' });
    expect(failed.test_output).toMatch(/FAILED \(failures=1\)/);
    expect(existsSync(unfixed.workspacePath)).toBe(false);

    const fixed = await seed(sumTo);
    await call('/write_file', { path: 'sum_to.py', content: fixedSumTo }, fixed.cookies);
    expect((await verify(sumTo, fixed.cookies)).json()).toMatchObject({ reward: 1, tests_passed: true, test_exit_code: 0 });
  });

  it('verify puts back the test files the agent changed or deleted before running them', async () => {
    const { cookies } = await seed(clamp);
    const test = clamp.files[1].content as string;
    await call('/write_file', { path: 'clamp.test.js', content: test.replace('clamp(-3, 0, 10), 0)', 'clamp(-3, 0, 10), 10)').replace('clamp(12, 0, 10), 10)', 'clamp(12, 0, 10), 0)') }, cookies);
    // The edited test passes on the buggy code in the workspace...
    expect((await call('/run_command', { command: 'node --test clamp.test.js >/dev/null && echo gamed' }, cookies)).json()).toMatchObject({ output: 'gamed\n' });
    // ...but verify runs the task's own test.
    const gamed = (await verify(clamp, cookies)).json();
    expect(gamed).toMatchObject({ reward: 0, tests_passed: false, restored_test_files: ['clamp.test.js'] });

    const deleted = await seed(sumTo);
    await call('/write_file', { path: 'sum_to.py', content: fixedSumTo }, deleted.cookies);
    await call('/run_command', { command: 'rm test_sum_to.py' }, deleted.cookies);
    expect(existsSync(join(deleted.workspacePath, 'test_sum_to.py'))).toBe(false);
    expect((await verify(sumTo, deleted.cookies)).json()).toMatchObject({ reward: 1, restored_test_files: ['test_sum_to.py'] });
  });

  it('verify records tests that do not finish as a failure, never as a reward', async () => {
    const hanging = { ...sumTo, files: [{ path: 'test_hang.py', content: 'import unittest\n\nclass T(unittest.TestCase):\n    def test_x(self):\n        while True:\n            pass\n' }], test_files: ['test_hang.py'], test_command: ['python3', '-m', 'unittest', 'test_hang'] };
    const { cookies } = await seed(hanging);
    const reply = await verify(hanging, cookies);
    expect(reply.status).toBe(504);
    expect(reply.headers['x-ngym-error-code']).toBe('NGYM_SANDBOX');
    expect(reply.text).toContain('did not finish within 5 s');
    expect(reply.text).not.toContain('reward":');
  });

  it('verify records a test command that cannot start as a failure', async () => {
    const broken = { ...sumTo, test_command: ['no-such-test-runner'] };
    const { cookies } = await seed(broken);
    const reply = await verify(broken, cookies);
    expect(reply.status).toBe(500);
    expect(reply.text).toContain('could not run (exec_failed');
  });
});

describe.skipIf(unavailable !== null)('coding_tasks shutdown', () => {
  it('removes the workspaces it made when the server stops', async () => {
    const own = mkdtempSync(join(workspaces, 'shutdown-'));
    const gym = await startInProcessGym({
      config: { coding_tasks: { resources_servers: { coding_tasks: { entrypoint: 'app.ts', domain: 'coding', workspaces_dir: own, sandbox: { pool_size: 1 } } } } },
    });
    try {
      expect((await http.request(gym.url('coding_tasks', '/seed_session'), { body: sumTo })).status).toBe(200);
      expect(readdirSync(own)).toHaveLength(1);
    } finally {
      await gym.close();
    }
    expect(readdirSync(own)).toEqual([]);
  });
});

describe.skipIf(unavailable === null)('coding_tasks', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
