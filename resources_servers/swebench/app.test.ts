/**
 * The swebench server on the project's container engine, with a task image built FROM the base image: a git
 * repository at /testbed whose check script prints pytest-style result lines. The agent's box and the verify box
 * are real containers; each bad case comes out as a recorded outcome or a failed verify naming its cause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CookieJar, DockerSandboxProvider, sharedHttpClient } from 'ngym';
import { assistantMessage, containerEngineForTests, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import { buildTestTaskImage, GOLD, row } from './__fixtures__/test-task.ts';

const engine = await containerEngineForTests();
const skipReason = 'skipReason' in engine ? engine.skipReason : undefined;
const http = sharedHttpClient();
const response = modelResponse([assistantMessage('done')]);

function serverConfig(extra: Record<string, unknown>) {
  return {
    sandbox: { docker: {} },
    swebench: { resources_servers: { swebench: { entrypoint: 'app.ts', domain: 'coding', sandbox_provider: 'sandbox', evaluation_timeout: 20, sandbox_config: { resources: { cpu: 1, memory_mib: 512 } }, ...extra } } },
  };
}

describe.skipIf(skipReason !== undefined)('swebench server on the container engine', () => {
  let agentGym: InProcessGym;
  let goldGym: InProcessGym;
  beforeAll(async () => {
    if ('skipReason' in engine) return;
    await buildTestTaskImage(engine.dockerHost, engine.baseImage);
    [agentGym, goldGym] = await Promise.all([startInProcessGym({ config: serverConfig({}) }), startInProcessGym({ config: serverConfig({ is_verifying_golden_patch: true, evaluation_timeout: 3 }) })]);
  }, 240_000);
  afterAll(async () => Promise.all([agentGym?.close(), goldGym?.close()]));

  const call = (gym: InProcessGym, path: string, body: unknown, cookies?: CookieJar) => http.request(gym.url('swebench', path), { body, cookies });
  async function seed() {
    const reply = await call(agentGym, '/seed_session', row());
    expect(reply.status, reply.text).toBe(200);
    const answer = reply.json<{ sandbox_handle: string; sandbox_descriptor: { sandbox_id: string } }>();
    expect(answer.sandbox_descriptor.sandbox_id).toBe(answer.sandbox_handle);
    return { cookies: reply.cookies, handle: answer.sandbox_handle };
  }
  const bash = (cookies: CookieJar, command: string) => call(agentGym, '/bash', { command }, cookies);
  const verify = (gym: InProcessGym, cookies: CookieJar | undefined, overrides: Record<string, unknown> = {}) => call(gym, '/verify', { ...row(overrides), response }, cookies);

  it.concurrent('resolves the fix an agent makes in its box, and ends that box', async () => {
    const { cookies, handle } = await seed();
    expect((await bash(cookies, 'git log --oneline | wc -l')).json<{ output: string }>().output.trim()).toBe('1');
    const applied = await bash(cookies, `git apply <<'EOF'\n${GOLD}EOF\ngit diff --stat`);
    expect(applied.json<{ return_code: number }>().return_code).toBe(0);
    const reply = await verify(agentGym, cookies);
    expect(reply.status, reply.text).toBe(200);
    const result = reply.json<Record<string, any>>();
    expect(result).toMatchObject({ reward: 1, resolved: true, evaluation_completed: true, patch_successfully_applied: true, resolution_status: 'RESOLVED_FULL' });
    expect(result.model_patch).toContain('+    return a + b');
    expect(result.tests_status.FAIL_TO_PASS.success).toEqual(['tests/test_calc.py::test_add']);
    // The agent's box is gone once verified; the session has none left.
    const provider = new DockerSandboxProvider({});
    try {
      await expect(provider.connect({ sandbox_id: handle })).rejects.toThrow();
    } finally {
      await provider.aclose();
    }
    expect((await bash(cookies, 'true')).status).toBe(400);
  });

  it.concurrent('leaves an untouched box unresolved, with the reason', async () => {
    const { cookies } = await seed();
    const result = (await verify(agentGym, cookies)).json<Record<string, any>>();
    expect(result).toMatchObject({ reward: 0, resolved: false, model_patch: null, unresolved_reason: 'the patch is empty' });
    expect(result.tests_status.FAIL_TO_PASS.failure).toEqual(['tests/test_calc.py::test_add']);
  });

  it.concurrent('grades with the tests restored when the agent rewrote them to pass', async () => {
    const { cookies } = await seed();
    await bash(cookies, `printf 'echo PASSED tests/test_calc.py::test_add\\necho PASSED tests/test_calc.py::test_double\\n' > tests/test_calc.py`);
    const result = (await verify(agentGym, cookies)).json<Record<string, any>>();
    expect(result).toMatchObject({ resolved: false, patch_successfully_applied: true });
    expect(result.model_patch).toContain('tests/test_calc.py');
    expect(result.tests_status.FAIL_TO_PASS.failure).toEqual(['tests/test_calc.py::test_add']);
  });

  it.concurrent('records an agent that deleted the repository as unresolved, naming why', async () => {
    const { cookies } = await seed();
    await bash(cookies, 'rm -rf /testbed/.git');
    const result = (await verify(agentGym, cookies)).json<Record<string, any>>();
    expect(result).toMatchObject({ reward: 0, resolved: false });
    expect(result.unresolved_reason).toMatch(/no readable git repository/);
  });

  it.concurrent('fails the verify, naming the cause, when the agent box was killed mid-rollout', async () => {
    const { cookies, handle } = await seed();
    const provider = new DockerSandboxProvider({});
    try {
      await provider.close(await provider.connect({ sandbox_id: handle }));
    } finally {
      await provider.aclose();
    }
    const reply = await verify(agentGym, cookies);
    expect(reply.status).toBe(502);
    expect(reply.text).toMatch(/could not take the agent.+s diff \(sandbox: .*no such container.*box is gone or its engine failed/);
  });

  it.concurrent('validates golden patches: gold resolves; a patch that does not apply and hanging tests are unresolved with the reason', async () => {
    const [gold, broken, hanging] = await Promise.all([
      verify(goldGym, undefined),
      verify(goldGym, undefined, { patch: GOLD.replace('return a - b', 'return a * b') }),
      verify(goldGym, undefined, { test_cmd: 'sleep 60' }),
    ]);
    expect(gold.json<Record<string, any>>()).toMatchObject({ resolved: true, reward: 1 });
    expect(broken.json<Record<string, any>>()).toMatchObject({ resolved: false, reward: 0, patch_successfully_applied: false });
    expect(broken.json<Record<string, any>>().unresolved_reason).toContain('Patch Apply Failed');
    expect(hanging.json<Record<string, any>>()).toMatchObject({ resolved: false, evaluation_completed: false, unresolved_reason: 'the tests did not finish within 3 s' });
  });

  it.concurrent('refuses a row without a test command or with an unknown parser before making a box', async () => {
    const [noCommand, badParser] = await Promise.all([verify(goldGym, undefined, { test_cmd: undefined }), verify(goldGym, undefined, { log_parser: 'nose' })]);
    expect(noCommand.status).toBe(422);
    expect(noCommand.text).toContain('has no test_cmd');
    expect(badParser.status).toBe(422);
    expect(badParser.text).toContain('log_parser \\"nose\\" is not one of');
  });
});

describe.skipIf(skipReason === undefined)('swebench server on the container engine', () => {
  it.skip(`skipped: ${skipReason ?? ''}`, () => {});
});
