/**
 * terminal_bench_2_1 on the project's container engine: the example tasks' images built from their Dockerfiles
 * (FROM the base image); golden mode runs each task's solve.sh and earns 1; an agent that does nothing earns 0;
 * the work an agent does through the `bash` tool is what the tests see; a test script that writes no reward and a
 * missing task folder are recorded as such.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CookieJar, sharedHttpClient } from 'ngym';
import { assistantMessage, containerEngineForTests, type InProcessGym, modelResponse, readJsonlRows, startInProcessGym } from 'ngym/testing';
import { buildDockerfileImage } from '../../src/sandbox/images/dockerfile-image.ts';
import { ImageEngine } from '../../src/sandbox/images/image-engine.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';

const engine = await containerEngineForTests();
const skipReason = 'skipReason' in engine ? engine.skipReason : undefined;
const http = sharedHttpClient();
const rows = readJsonlRows(join(PACKAGE_ROOT, 'resources_servers/terminal_bench_2_1/data/example.jsonl')) as Record<string, any>[];
const response = modelResponse([assistantMessage('done')]);

function serverConfig(extra: Record<string, unknown>) {
  return {
    sandbox: { docker: {} },
    terminal: { resources_servers: { terminal_bench_2_1: { entrypoint: 'app.ts', domain: 'agent', sandbox_provider: 'sandbox', evaluation_timeout: 60, sandbox_config: { resources: { cpu: 1, memory_mib: 512 } }, ...extra } } },
  };
}

describe.skipIf(skipReason !== undefined)('terminal_bench_2_1 on the container engine', () => {
  let agentGym: InProcessGym;
  let goldGym: InProcessGym;
  beforeAll(async () => {
    if ('skipReason' in engine) return;
    const images = new ImageEngine(engine.dockerHost);
    try {
      for (const row of rows) await buildDockerfileImage(images, { dockerfile: join(PACKAGE_ROOT, row.task_folder, 'environment', 'Dockerfile'), tag: row.docker_image });
    } finally {
      await images.close();
    }
    [agentGym, goldGym] = await Promise.all([startInProcessGym({ config: serverConfig({}) }), startInProcessGym({ config: serverConfig({ is_verifying_golden_patch: true }) })]);
  }, 240_000);
  afterAll(async () => Promise.all([agentGym?.close(), goldGym?.close()]));

  const call = (gym: InProcessGym, path: string, body: unknown, cookies?: CookieJar) => http.request(gym.url('terminal', path), { body, cookies });
  const verify = (gym: InProcessGym, row: Record<string, any>, cookies?: CookieJar) => call(gym, '/verify', { ...row, response }, cookies);

  it('earns 1 on every example task with its solution (golden mode)', async () => {
    const results = await Promise.all(rows.map((row) => verify(goldGym, row)));
    for (const [index, reply] of results.entries()) {
      expect(reply.status, reply.text).toBe(200);
      expect(reply.json<Record<string, any>>(), rows[index]?.task_name).toMatchObject({ reward: 1, evaluation_completed: true, task_name: rows[index]?.task_name });
    }
  });

  it('earns 0 when the agent does nothing, and 1 for the work done through the bash tool', async () => {
    const row = rows.find((candidate) => candidate.task_name === 'ngym/service-config') as Record<string, any>;
    const [idle, working] = await Promise.all([call(agentGym, '/seed_session', row), call(agentGym, '/seed_session', row)]);
    expect(idle.json<{ sandbox_handle: string }>().sandbox_handle).toMatch(/^nemo-gym-/);
    const configured = await call(agentGym, '/bash', { command: "sed -i 's/^port=.*/port=9090/; s/^greeting=.*/greeting=hello from ngym/' /app/service/service.conf && bash /app/service/run.sh" }, working.cookies);
    expect(configured.json<{ output: string; return_code: number }>()).toMatchObject({ output: 'started on 9090\n', return_code: 0 });
    const [idleResult, workingResult] = await Promise.all([verify(agentGym, row, idle.cookies), verify(agentGym, row, working.cookies)]);
    expect(idleResult.json<Record<string, any>>()).toMatchObject({ reward: 0, evaluation_completed: true });
    expect(idleResult.json<Record<string, any>>().test_output).toContain('FAIL');
    expect(workingResult.json<Record<string, any>>()).toMatchObject({ reward: 1, evaluation_completed: true });
  });

  it('records a test script that writes no reward, and refuses a task without its tests', async () => {
    const row = rows[0] as Record<string, any>;
    const seeded = await call(agentGym, '/seed_session', row);
    await call(agentGym, '/bash', { command: 'rm -rf /logs && touch /logs' }, seeded.cookies);
    const result = (await verify(agentGym, row, seeded.cookies)).json<Record<string, any>>();
    expect(result).toMatchObject({ reward: 0, evaluation_completed: false });
    expect(result.unresolved_reason).toContain('wrote no /logs/verifier/reward.txt');
    const missing = await verify(goldGym, { ...row, task_folder: 'resources_servers/terminal_bench_2_1/tasks/absent' });
    expect(missing.status).toBe(422);
    expect(missing.text).toContain('has no solution/');
  });
});

describe.skipIf(skipReason === undefined)('terminal_bench_2_1 on the container engine', () => {
  it.skip(`skipped: ${skipReason ?? ''}`, () => {});
});
