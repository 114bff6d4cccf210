/**
 * Upstream's Python claude_code_agent (nemo-gym 0.7.0's app.py, `prefer_upstream: true`) under `ngym run`, next to
 * ngym's TypeScript servers: it finds the pinned Claude Code of harness-cli/ on its PATH (installing nothing), runs
 * it against vllm_model's `/v1/messages` over a scripted vLLM engine, and a TypeScript resources server scores the
 * final answer. Also: an upstream harness agent without its pinned CLI is refused before anything starts.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type GymProcess, startGymProcess, startVllmBackend, upstreamWheel, type VllmBackend } from 'ngym/testing';
import { checkHarnessCli } from '../../src/gym/hosting.ts';
import type { ServerInstance } from '../../src/config/server-instances.ts';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';
import { environmentOf, processesTagged, untilNoneLeft } from '../../src/testing/process-table.ts';
import { policyModelConfig } from '../../responses_api_models/vllm_model/test-config.ts';
import { CLI_ROOT } from './test-helpers.ts';

const wheel = upstreamWheel();
const UPSTREAM_APP = join(wheel.sitePackages, 'responses_api_agents', 'claude_code_agent', 'app.py');
const PINNED_CLAUDE = join(CLI_ROOT, 'node_modules', '.bin', 'claude');

function skipReason(): string | null {
  if (wheel.skipReason !== null) return wheel.skipReason;
  if (!existsSync(UPSTREAM_APP)) return `the installed nemo-gym has no responses_api_agents/claude_code_agent (${UPSTREAM_APP}); skipping`;
  if (!existsSync(PINNED_CLAUDE)) return `the harness CLIs are not installed (npm run setup:harness-cli): no ${PINNED_CLAUDE}; skipping`;
  return null;
}
const skip = skipReason();

/** The resources server: reward 1 when the final assistant message contains the row's `expected_answer`. */
const ANSWER_SERVER = `import { defineResourcesServer } from ${JSON.stringify(join(PACKAGE_ROOT, 'src', 'index.ts'))};
export default defineResourcesServer({
  className: 'FinalAnswer',
  verify: (request) => {
    const messages = request.response.output.filter((item) => item.type === 'message' && item.role === 'assistant');
    const last = messages.at(-1);
    const text = last === undefined || typeof last.content === 'string' ? '' : last.content.map((part) => part.text ?? '').join('');
    return { reward: text.includes(String(request.expected_answer)) ? 1 : 0, final_text: text };
  },
});
`;

/** A project folder (the working directory of `ngym run`) with the resources server, the config and a HOME of its own. */
function project(engineBaseUrl: string): { root: string; home: string } {
  const root = mkdtempSync(join(tmpdir(), 'ngym-upstream-claude-'));
  folders.push(root);
  mkdirSync(join(root, 'resources_servers', 'final_answer'), { recursive: true });
  writeFileSync(join(root, 'package.json'), '{"type": "module"}\n');
  writeFileSync(join(root, 'resources_servers', 'final_answer', 'app.ts'), ANSWER_SERVER);
  const config = {
    prefer_upstream: true,
    python_executable: wheel.python,
    answers: { resources_servers: { final_answer: { entrypoint: 'app.ts', domain: 'other' } } },
    claude_agent: {
      responses_api_agents: {
        claude_code_agent: {
          entrypoint: 'app.py',
          resources_server: { type: 'resources_servers', name: 'answers' },
          model_server: { type: 'responses_api_models', name: 'policy_model' },
          model: 'toy-model',
          // Upstream sends it as the bearer token; ngym's model server asks for none.
          anthropic_api_key: 'not-a-real-key',
          max_turns: 3,
          timeout: 120,
          concurrency: 2,
        },
      },
    },
    ...policyModelConfig(engineBaseUrl, { return_token_id_information: false, uses_reasoning_parser: false }),
  };
  // JSON is YAML.
  writeFileSync(join(root, 'upstream-claude.yaml'), JSON.stringify(config, null, 2));
  // Upstream's agent keeps each run's CLAUDE_CONFIG_DIR under ~/.claude_code_agent.
  const home = join(root, 'home');
  mkdirSync(home);
  return { root, home };
}

async function serverInstance(headPort: number, name: string): Promise<{ url: string; pid: number }> {
  const instances = (await (await fetch(`http://127.0.0.1:${headPort}/server_instances`)).json()) as { name: string; url: string; pid: number }[];
  const found = instances.find((instance) => instance.name === name);
  if (found === undefined) throw new Error(`the head server lists no '${name}': ${JSON.stringify(instances)}`);
  return found;
}

/** How many `/v1/messages` requests the model server answered with `status`, from its Prometheus metrics. */
async function messagesAnswered(modelUrl: string, status: number): Promise<number> {
  const exposition = await (await fetch(`${modelUrl}/metrics`)).text();
  const line = exposition
    .split('\n')
    .find((entry) => entry.startsWith('http_server_request_duration_seconds_count{') && entry.includes('http_route="/v1/messages"') && entry.includes(`http_response_status_code="${status}"`));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

let gym: GymProcess | undefined;
let engine: VllmBackend | undefined;
const folders: string[] = [];
afterEach(async () => {
  await gym?.stop();
  await engine?.close();
  gym = undefined;
  engine = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(skip !== null)("upstream's Python claude_code_agent under ngym run", () => {
  it('runs the pinned Claude Code against /v1/messages of an ngym model server: the rewards of the final answers', async () => {
    engine = await startVllmBackend({ reply: (call) => ({ content: Array.isArray(call.body.tools) && call.body.tools.length > 0 ? 'The answer is 42.' : 'Answer' }) });
    const { root, home } = project(engine.baseUrl);
    const tag = randomUUID();
    gym = await startGymProcess([`+config_paths=[${join(root, 'upstream-claude.yaml')}]`], { cwd: root, env: { HOME: home, NGYM_TEST_PROCESS_TAG: tag } });
    // The table ngym run prints: upstream's Python agent runs, not ngym's TypeScript one.
    expect(gym.stdout()).toMatch(/claude_agent .* Python \S*responses_api_agents\/claude_code_agent/);

    const agent = await serverInstance(gym.headPort, 'claude_agent');
    // The pinned CLIs are on the Python agent's PATH, ahead of anything else that could hold a `claude`.
    const path = environmentOf(agent.pid).find((entry) => entry.startsWith('PATH='))?.slice('PATH='.length).split(':') ?? [];
    const inheritedFirst = (process.env.PATH ?? '').split(':')[0] as string;
    expect(path).toContain(join(CLI_ROOT, 'node_modules', '.bin'));
    expect(path.indexOf(join(CLI_ROOT, 'node_modules', '.bin'))).toBeLessThan(path.indexOf(inheritedFirst));

    const run = async (expected: string) => {
      const response = await fetch(`${agent.url}/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ responses_create_params: { input: [{ role: 'user', content: 'What is six times seven? Answer in one sentence.' }] }, expected_answer: expected }),
      });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return JSON.parse(text) as Record<string, any>;
    };
    const right = await run('42');
    expect(right.reward).toBe(1);
    expect(right.final_text).toBe('The answer is 42.');
    // Upstream's own fields: Claude Code's answer came back through its stream-json output.
    expect(right.finished_naturally).toBe(true);
    expect(right.response.output.at(-1).content[0].text).toBe('The answer is 42.');
    const wrong = await run('17');
    expect(wrong.reward).toBe(0);

    // Every model call went to the model server's /v1/messages (Claude Code speaks only that) and was answered.
    const modelUrl = (await serverInstance(gym.headPort, 'policy_model')).url;
    expect(await messagesAnswered(modelUrl, 200)).toBeGreaterThanOrEqual(2);
    expect(await messagesAnswered(modelUrl, 200)).toBe(engine.generations.length);
    // The CLI that ran is harness-cli's pinned one (upstream's agent logs `claude --version` at start).
    const pinned = (JSON.parse(readFileSync(join(CLI_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['@anthropic-ai/claude-code'];
    expect(gym.stdout() + gym.stderr()).toContain(`claude-code version: ${pinned}`);

    await gym.stop();
    gym = undefined;
    // Nothing ngym run started (the Python agent, Claude Code, the TypeScript servers) outlives it.
    expect(await untilNoneLeft(() => processesTagged('NGYM_TEST_PROCESS_TAG', tag), 15_000)).toEqual([]);
  }, 240_000);
});

if (skip !== null) describe("upstream's Python claude_code_agent under ngym run", () => it.skip(`skipped: ${skip}`, () => {}));

describe('an upstream harness agent without its pinned CLI', () => {
  const instance = (impl: string): ServerInstance => ({ name: 'agent', serverType: 'responses_api_agents', impl, config: {} });
  const python = { directory: '/x', entrypoint: '/x/app.py', language: 'python' } as const;
  // A folder that holds no CLI.
  const empty = join(tmpdir(), `ngym-no-cli-${randomUUID()}`);

  it('is refused before start, telling the user to run npm run setup:harness-cli', () => {
    for (const [impl, command] of [['claude_code_agent', 'claude'], ['codex_agent', 'codex'], ['opencode_agent', 'opencode']]) {
      expect(() => checkHarnessCli(instance(impl as string), python, empty)).toThrow(new RegExp(`'agent' runs upstream's ${impl}, which needs the \`${command}\` CLI.*npm run setup:harness-cli`));
    }
  });

  it("passes other Python agents, and ngym's own TypeScript harness agents", () => {
    expect(() => checkHarnessCli(instance('simple_agent'), python, empty)).not.toThrow();
    expect(() => checkHarnessCli(instance('claude_code_agent'), { directory: '/x', entrypoint: '/x/app.ts', language: 'typescript' }, empty)).not.toThrow();
  });
});
