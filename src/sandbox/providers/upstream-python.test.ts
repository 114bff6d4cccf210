/**
 * Upstream's Python servers that use `nemo_gym.sandbox`, under `ngym run`: the sandbox block they read has no
 * image_map (upstream's own resolver refuses one) and labels their docker boxes with the run; and end to end,
 * upstream 0.7.0's job_bench (unmodified, its DockerProvider through the docker CLI on the project's engine) makes
 * its boxes from a stand-in of python:3.13-bookworm built here and mapped with image_map, and gives the recorded
 * rewards of its example rollouts (two in CI; NGYM_UPSTREAM_CONTAINERS=all for the five, and workspace_bench's five, whose judge runs in a box of its own) with the judge replayed from the recorded verdicts. Skips without the venv or an
 * engine.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { globalConfigFromDict } from '../../config/global-config.ts';
import { startGymProcess } from '../../testing/cli-process.ts';
import { containerEngineForTests } from '../../testing/container-engine.ts';
import { upstreamWheel } from '../../testing/upstream-wheel.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { buildDockerfileImage } from '../images/dockerfile-image.ts';
import { ImageEngine } from '../images/image-engine.ts';
import { DockerSandboxProvider } from './docker/docker-provider.ts';
import { EngineClient } from './docker/engine-client.ts';
import { upstreamSandboxSetup } from './upstream-python.ts';

const run = promisify(execFile);
const wheel = upstreamWheel('job_bench');
const CONFIGS = join(PACKAGE_ROOT, 'configs', 'upstream_containers');

const block = { docker: { create: { extra_run_args: ['--init'] } }, image_map: { 'python:3.13-bookworm': 'localhost/x:1' }, default_metadata: { a: 'b' } };
const config = () =>
  globalConfigFromDict({
    sandbox: block,
    py: { resources_servers: { py: { entrypoint: 'app.py', domain: 'other', sandbox_provider: 'sandbox' } } },
  });

describe('the sandbox block a Python server reads', () => {
  it("drops image_map, keeps the rest, and labels its docker boxes with the run", () => {
    const setup = upstreamSandboxSetup(config(), () => true, 'host:1:2');
    expect(setup.blocks).toEqual({
      sandbox: {
        docker: { create: { extra_run_args: ['--init', '--label', 'ngym.sandbox=1', '--label', 'ngym.run=host:1:2', '--label', 'ngym.upstream=1'] } },
        default_metadata: { a: 'b' },
      },
    });
    expect(setup.usesDocker).toBe(true);
    expect(setup.imageMaps).toEqual([{ block: 'sandbox', map: { 'python:3.13-bookworm': 'localhost/x:1' } }]);
    expect(setup.env.DOCKER_HOST).toMatch(/^(unix|tcp|http):\/\//);
    expect(upstreamSandboxSetup(config(), () => false, 'host:1:2')).toMatchObject({ blocks: {}, env: {}, usesDocker: false });
  });

  it.skipIf(wheel.skipReason !== null)("is one upstream's resolver takes, where the block as written is refused", async () => {
    const resolve = (value: unknown) =>
      run(wheel.python, ['-c', 'import json,sys; from nemo_gym.sandbox.config import resolve_provider_config as r; print(json.dumps(r("sandbox", {"sandbox": json.loads(sys.argv[1])})))', JSON.stringify(value)]);
    await expect(resolve(block)).rejects.toThrow(/exactly one provider key/);
    const setup = upstreamSandboxSetup(config(), () => true, 'host:1:2');
    expect(JSON.parse((await resolve(setup.blocks.sandbox)).stdout)).toEqual({ docker: (setup.blocks.sandbox as Record<string, unknown>).docker });
  });
});

const engine = await containerEngineForTests();
const skip = wheel.skipReason ?? ('skipReason' in engine ? engine.skipReason : null);

interface RecordedRubric {
  rubric: string;
  weight: number;
  result: { passed: boolean; criteria_results: { criterion: string; passed: boolean; reasoning: string; evidence: string }[]; overall_reasoning?: string };
}

/** An OpenAI-compatible judge that answers each rubric with its recorded verdict, found by the rubric's text in the prompt. */
async function replayJudge(rubrics: RecordedRubric[]): Promise<{ url: string; calls: () => number; close: () => Promise<void> }> {
  let calls = 0;
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      calls++;
      const prompt = String((JSON.parse(body) as { messages: { content: unknown }[] }).messages.at(-1)?.content);
      const recorded = rubrics.find((rubric) => prompt.includes(`## Rubric Description\n${rubric.rubric}\n`));
      if (recorded === undefined) {
        response.writeHead(404).end(JSON.stringify({ error: { message: 'no recorded verdict for this rubric' } }));
        return;
      }
      const content = JSON.stringify({
        criteria_results: recorded.result.criteria_results.map((criterion, index) => ({ index, passed: criterion.passed, reasoning: criterion.reasoning, evidence: criterion.evidence })),
        rubric_passed: recorded.result.passed,
        overall_reasoning: recorded.result.overall_reasoning ?? '',
      });
      response.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({ id: `replay-${calls}`, object: 'chat.completion', created: 0, model: 'replay', choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }] }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/v1`, calls: () => calls, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** POSTs to the server with the session cookie of `jar` (updated from the answer). */
async function post(url: string, body: unknown, jar: { cookie?: string }): Promise<Record<string, any>> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...(jar.cookie === undefined ? {} : { cookie: jar.cookie }) }, body: JSON.stringify(body) });
  const cookie = response.headers.get('set-cookie');
  if (cookie !== null) jar.cookie = cookie.split(';')[0];
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered HTTP ${response.status}: ${text}`);
  return JSON.parse(text) as Record<string, any>;
}

const scratch: string[] = [];
afterAll(() => {
  for (const folder of scratch) rmSync(folder, { recursive: true, force: true });
});

describe.skipIf(skip !== null)(`upstream's job_bench under ngym run, its boxes on the project's engine${skip === null ? '' : ` (skipped: ${skip})`}`, () => {
  const { dockerHost } = engine as { dockerHost: string };

  it('gives the recorded rewards (judge replayed), labels its boxes with the run, and leaves none after the run', { timeout: 240_000 }, async () => {
    const images = new ImageEngine(dockerHost);
    try {
      await buildDockerfileImage(images, { dockerfile: join(CONFIGS, 'images', 'python', 'Dockerfile'), tag: 'localhost/ngym/upstream-python:bookworm' });
    } finally {
      await images.close();
    }
    // CI takes the first two recorded rows (the server's start alone is ~50 s on a loaded machine); NGYM_UPSTREAM_CONTAINERS=all takes all five.
    const recorded = readFileSync(join(wheel.folder, 'data', 'example_rollouts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const rows = process.env.NGYM_UPSTREAM_CONTAINERS === 'all' ? recorded : recorded.slice(0, 2);
    const rubrics = rows.flatMap((row) => row.rubrics as RecordedRubric[]);
    const judge = await replayJudge(rubrics);
    // The task folders are on Hugging Face (unreachable here): each row gets a stand-in folder and its rubrics as recorded.
    const tasks = mkdtempSync(join(tmpdir(), 'ngym-job-bench-'));
    scratch.push(tasks);
    const requests = rows.map((row, index) => {
      const folder = join(tasks, String(index));
      mkdirSync(join(folder, 'task_folder'), { recursive: true });
      writeFileSync(join(folder, 'task_folder', 'TASK_INSTRUCTIONS.txt'), `Stand-in for ${row.task_dir}.\n`);
      const rubricsFile = join(folder, 'rubrics.json');
      writeFileSync(rubricsFile, JSON.stringify({ rubrics: (row.rubrics as RecordedRubric[]).map((rubric) => ({ rubric: rubric.rubric, weight: rubric.weight, criterion: rubric.result.criteria_results.map((item) => item.criterion) })) }));
      return { task_id: row.task_id as string, task_dir: folder, rubrics_file: rubricsFile };
    });

    const gym = await startGymProcess(['+config_paths=[resources_servers/job_bench/configs/job_bench.yaml,' + join(CONFIGS, 'docker_local_images.yaml') + ']'], {
      env: { DOCKER_HOST: dockerHost, JOB_BENCH_JUDGE_BASE_URL: judge.url, JOB_BENCH_JUDGE_API_KEY: 'replay', JOB_BENCH_JUDGE_MODEL: String(rows[0]?.judge_model) },
    });
    const engineClient = new EngineClient(dockerHost, 4);
    const provider = new DockerSandboxProvider({}, { dockerHost });
    let runId: string | undefined;
    try {
      expect(gym.stdout() + gym.stderr()).toContain('python:3.13-bookworm runs as localhost/ngym/upstream-python:bookworm');
      const url = /job_bench_resources_server\s.*?(http:\/\/127\.0\.0\.1:\d+)/.exec(gym.stdout())?.[1];
      expect(url, gym.stdout()).toBeDefined();
      const rewards: number[] = [];
      for (const [index, row] of rows.entries()) {
        const jar = {};
        const seeded = await post(`${url}/seed_session`, requests[index], jar);
        const box = await engineClient.inspectContainer(seeded.sandbox_handle as string);
        expect(box?.Config.Image).toMatch(/python:3\.13-bookworm/);
        expect(box?.Config.Labels).toMatchObject({ 'nemo-gym.sandbox': '1', 'ngym.sandbox': '1', 'ngym.upstream': '1' });
        runId = box?.Config.Labels?.['ngym.run'];
        expect(runId).toMatch(/:\d+:\d+$/);
        // The agent's turns are not replayed (they ran pip and curl against the internet): ngym adopts the box by
        // id and leaves a deliverable where the agent would, which the replayed judge then grades as recorded.
        const adopted = await provider.connect(seeded.sandbox_descriptor as { sandbox_id: string });
        expect(await provider.exec(adopted, `test -f /workspace/task/TASK_INSTRUCTIONS.txt && printf '# Deliverable\\n' > /workspace/output/report.md`)).toMatchObject({ return_code: 0 });
        const verified = await post(`${url}/verify`, { ...requests[index], responses_create_params: row.responses_create_params, response: row.response }, jar);
        rewards.push(verified.reward as number);
        expect(await engineClient.inspectContainer(seeded.sandbox_handle as string)).toBeUndefined();
      }
      expect(rewards).toEqual(rows.map((row) => row.reward));
      expect(judge.calls()).toBe(rubrics.length);
      // A session the run still holds at its end: its box goes with the run.
      await post(`${url}/seed_session`, requests[0], {});
      expect(await engineClient.listContainers([`ngym.run=${runId}`])).toHaveLength(1);
    } finally {
      await gym.stop();
      await provider.aclose();
      await judge.close();
    }
    expect(await engineClient.listContainers([`ngym.run=${runId}`])).toEqual([]);
    await engineClient.close();
  });
});

/**
 * The stand-in of Workspace-Bench's evaluator (its real image's /workspace/Workspace-Bench/evaluation, not
 * reachable here): it replays the verdicts recorded for the task, which the test bakes into the judge's image.
 * Debian's python3-minimal has no json module: the task id is read with a regular expression.
 */
const REPLAY_EVALUATOR = `import os, re, sys
task = sys.argv[sys.argv.index("--task-dir") + 1]
task_id = re.search(r'"task_id": "([^"]+)"', open(os.path.join(task, "metadata.json")).read()).group(1)
for name in ("rubrics_judge--gym-judge.json", "dependency_graph--gym-judge.json"):
    open(os.path.join(task, name), "w").write(open(os.path.join("/opt/ngym-replay", task_id, name)).read())
`;

const fullRun = process.env.NGYM_UPSTREAM_CONTAINERS === 'all' ? null : 'the longer proof: NGYM_UPSTREAM_CONTAINERS=all';
const workspace = upstreamWheel('workspace_bench');
const workspaceSkip = skip ?? workspace.skipReason ?? fullRun;

describe.skipIf(workspaceSkip !== null)(`upstream's workspace_bench under ngym run${workspaceSkip === null ? '' : ` (skipped: ${workspaceSkip})`}`, () => {
  const { dockerHost } = engine as { dockerHost: string };

  it('gives the recorded rewards with its in-box judge replayed, from a stand-in of node:24-bookworm-slim', { timeout: 300_000 }, async () => {
    const rows = readFileSync(join(workspace.folder, 'data', 'example_rollouts.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const folder = mkdtempSync(join(tmpdir(), 'ngym-workspace-bench-'));
    scratch.push(folder);
    // The judge's image: the node stand-in with the recorded verdicts and the evaluator that replays them.
    mkdirSync(join(folder, 'image'));
    writeFileSync(join(folder, 'image', 'agent_as_a_judge.py'), REPLAY_EVALUATOR);
    for (const row of rows) {
      mkdirSync(join(folder, 'image', 'replay', row.task_id), { recursive: true });
      writeFileSync(join(folder, 'image', 'replay', row.task_id, 'rubrics_judge--gym-judge.json'), JSON.stringify({ rubrics: row.rubrics, judge: {} }));
      writeFileSync(join(folder, 'image', 'replay', row.task_id, 'dependency_graph--gym-judge.json'), JSON.stringify(row.dependency_graph));
    }
    writeFileSync(join(folder, 'image', 'Dockerfile'), 'FROM localhost/ngym/upstream-node:bookworm\nCOPY replay /opt/ngym-replay\nCOPY agent_as_a_judge.py /workspace/Workspace-Bench/evaluation/src/agent_as_a_judge.py\n');
    const images = new ImageEngine(dockerHost);
    try {
      await buildDockerfileImage(images, { dockerfile: join(CONFIGS, 'images', 'node', 'Dockerfile'), tag: 'localhost/ngym/upstream-node:bookworm' });
      await buildDockerfileImage(images, { dockerfile: join(folder, 'image', 'Dockerfile'), tag: 'localhost/ngym/workspace-bench-replay:test' });
    } finally {
      await images.close();
    }
    writeFileSync(join(folder, 'sandbox.yaml'), 'sandbox:\n  docker: {}\n  image_map:\n    node:24-bookworm-slim: localhost/ngym/workspace-bench-replay:test\n');
    // The task folders are on Hugging Face: stand-ins with one input file each.
    const requests = rows.map((row) => {
      const task = join(folder, 'tasks', row.task_id);
      mkdirSync(join(task, 'files'), { recursive: true });
      writeFileSync(join(task, 'files', 'brief.md'), `Stand-in for ${row.task_dir}.\n`);
      writeFileSync(join(task, 'metadata.json'), JSON.stringify({ task_id: row.task_id, data_manifest: [{ stored_relpath: 'files/brief.md', filename: 'brief.md' }] }));
      return { task_id: row.task_id as string, task_dir: task };
    });
    const gym = await startGymProcess([`+config_paths=[resources_servers/workspace_bench/configs/workspace_bench.yaml,${join(folder, 'sandbox.yaml')}]`], { env: { DOCKER_HOST: dockerHost } });
    const provider = new DockerSandboxProvider({}, { dockerHost });
    try {
      const url = /workspace_bench_resources_server\s.*?(http:\/\/127\.0\.0\.1:\d+)/.exec(gym.stdout())?.[1];
      expect(url, gym.stdout()).toBeDefined();
      const results = [];
      for (const [index, row] of rows.entries()) {
        const jar = {};
        const seeded = await post(`${url}/seed_session`, requests[index], jar);
        const adopted = await provider.connect(seeded.sandbox_descriptor as { sandbox_id: string });
        expect(await provider.exec(adopted, 'cat /workspace/input/brief.md && printf done > /workspace/output/result.md')).toMatchObject({ return_code: 0, stdout: expect.stringContaining('Stand-in for') });
        const verified = await post(`${url}/verify`, { ...requests[index], responses_create_params: row.responses_create_params, response: row.response }, jar);
        results.push({ reward: verified.reward, graph: verified.dependency_graph });
      }
      expect(results).toEqual(rows.map((row) => ({ reward: row.reward, graph: row.dependency_graph })));
    } finally {
      await gym.stop();
      await provider.aclose();
      // The public name must not keep pointing at the replaying judge's image.
      const cleanup = new ImageEngine(dockerHost);
      await cleanup.removeImage('docker.io/library/node:24-bookworm-slim', false).catch(() => false);
      await cleanup.removeImage('localhost/ngym/workspace-bench-replay:test', false).catch(() => false);
      await cleanup.close();
    }
  });
});
