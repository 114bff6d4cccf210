/**
 * terminal_bench_2_1: Terminal-Bench-style tasks in container boxes, with upstream 0.7.0's config and data shape.
 * A row names the task (`task_name`), its image (`docker_image`, built from the task's Dockerfile) and its folder
 * (`task_folder`: instruction, `tests/`, `solution/`). `/seed_session` makes the task's box and answers its handle;
 * the agent works in it (adopting it by the handle, or through the `bash` tool). `/verify` uploads `tests/` to
 * /tests in that box, runs `bash /tests/test.sh` and reads the reward from /logs/verifier/reward.txt. Golden mode
 * runs the task's `solution/solve.sh` in a fresh box first. A test script that leaves no reward, or times out, is
 * recorded with `evaluation_completed: false` and the reason; a box or engine that fails is a failed verify naming
 * the cause.
 */
import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineResourcesServer, NgymError, type SandboxHandle, type SandboxProvider } from 'ngym';
import * as z from 'zod';
import { bashInSessionBox, BOX_SERVER_CONFIG, boxSpec, clipOutput as clip, infrastructureFailure, openSessionBoxes } from '../swebench/boxes.ts';

/** Relative task folders are read from the package root (as upstream's are from its repository). */
const PACKAGE_ROOT = resolve(fileURLToPath(import.meta.url), '../../..');
const REWARD_PATH = '/logs/verifier/reward.txt';

const TaskFields = z.looseObject({
  task_name: z.string().min(1),
  docker_image: z.string().min(1),
  task_folder: z.string().min(1),
});
type Task = z.infer<typeof TaskFields>;


/** The files of a task's subfolder (relative paths), or a clear error when it is missing. */
async function filesOf(task: Task, subfolder: string): Promise<{ root: string; files: string[] }> {
  const root = resolve(isAbsolute(task.task_folder) ? task.task_folder : join(PACKAGE_ROOT, task.task_folder), subfolder);
  const entries = await readdir(root, { recursive: true }).catch(() => {
    throw new NgymError('NGYM_INVALID_REQUEST', `${task.task_name}: the task folder has no ${subfolder}/ (${root})`, { status: 422 });
  });
  const files: string[] = [];
  for (const entry of entries) if ((await stat(join(root, entry))).isFile()) files.push(entry);
  return { root, files: files.sort() };
}

/** Copies a task's subfolder into the box, file by file (parent folders made), as upstream uploads it. */
async function uploadFolder(provider: SandboxProvider, handle: SandboxHandle, task: Task, subfolder: string, target: string): Promise<void> {
  const { root, files } = await filesOf(task, subfolder);
  for (const file of files) {
    if (relative(root, join(root, file)).startsWith('..')) continue;
    await provider.upload_file(handle, join(root, file), `${target}/${file}`);
  }
}

/** The reward the test script wrote, or why there is none. */
async function readReward(provider: SandboxProvider, handle: SandboxHandle): Promise<{ reward: number } | { missing: string }> {
  const folder = await mkdtemp(join(tmpdir(), 'ngym-terminal-'));
  try {
    await provider.download_file(handle, REWARD_PATH, join(folder, 'reward.txt'));
    const text = (await readFile(join(folder, 'reward.txt'), 'utf8')).trim();
    const reward = Number(text);
    return text !== '' && Number.isFinite(reward) ? { reward } : { missing: `${REWARD_PATH} holds ${JSON.stringify(text.slice(0, 100))}, not a number` };
  } catch (error) {
    return { missing: `the tests wrote no ${REWARD_PATH} (${(error as Error).message.slice(0, 200)})` };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

export default defineResourcesServer({
  className: 'TerminalBench21ResourcesServer',
  config: {
    ...BOX_SERVER_CONFIG,
    debug: z.boolean().default(false),
  },
  setup: ({ config, globalConfig }) => {
    const boxes = openSessionBoxes(config, globalConfig);
    const { provider, defaultMetadata } = boxes;
    const createBox = async (task: Task): Promise<SandboxHandle> => {
      try {
        return await provider.create(boxSpec(task.docker_image, task.task_name, config.sandbox_config, config.name ?? 'terminal_bench_2_1', defaultMetadata));
      } catch (error) {
        throw new NgymError('NGYM_SANDBOX', `${task.task_name}: could not make the task's box (image ${task.docker_image}): ${(error as Error).message}`, { status: 502 });
      }
    };
    return { ...boxes, createBox };
  },
  close: (state) => state.provider.aclose(),
  seedSessionRequest: TaskFields,
  seedSession: async (task, { sessionId, state }) => {
    const previous = state.sessions.get(sessionId);
    if (previous !== undefined) {
      state.sessions.delete(sessionId);
      await state.provider.close(previous);
    }
    const handle = await state.createBox(task);
    state.sessions.set(sessionId, handle);
    return { sandbox_handle: handle.sandbox_id };
  },
  tools: {
    // ngym's addition: lets a tool-calling agent (simple_agent) work in the box; harness agents adopt it by its handle.
    bash: {
      description: "Run a bash command in the task's box; its output and exit code come back. Files and installed packages persist between commands.",
      parameters: z.strictObject({ command: z.string().min(1).describe('A bash command, e.g. "ls -la /app".') }),
      handler: ({ command }, { config, sessionId, state }) => bashInSessionBox(state, sessionId, command, config.command_timeout),
    },
  },
  verifyRequest: TaskFields,
  verify: async (task, { config, sessionId, state }) => {
    let handle: SandboxHandle;
    let goldenPatchOutput: string | null = null;
    if (config.is_verifying_golden_patch) {
      handle = await state.createBox(task);
      try {
        const cwd = (await state.provider.exec(handle, 'pwd')).stdout?.trim() || '/';
        await uploadFolder(state.provider, handle, task, 'solution', cwd === '/' ? '' : cwd);
        const solved = await state.provider.exec(handle, `bash ${cwd === '/' ? '' : cwd}/solve.sh`, { timeout_s: config.evaluation_timeout });
        goldenPatchOutput = clip(`${solved.stderr ?? ''}${solved.stdout ?? ''}`);
      } catch (error) {
        await state.provider.close(handle).catch(() => {});
        throw error;
      }
    } else {
      const seeded = state.sessions.get(sessionId);
      if (seeded === undefined) throw new NgymError('NGYM_INVALID_REQUEST', `${task.task_name}: this session has no task box: call /seed_session first (or it was already verified).`, { status: 400 });
      state.sessions.delete(sessionId);
      handle = seeded;
    }
    const started = performance.now();
    try {
      await uploadFolder(state.provider, handle, task, 'tests', '/tests');
      const result = await state.provider.exec(handle, 'bash /tests/test.sh', { timeout_s: config.evaluation_timeout });
      const seconds = (performance.now() - started) / 1000;
      const testOutput = clip(`${result.stderr ?? ''}${result.stdout ?? ''}`);
      const base = { verification_time_taken: seconds, task_name: task.task_name, test_output: testOutput, golden_patch_output: goldenPatchOutput };
      if (result.error_type === 'timeout') return { ...base, reward: 0.0, evaluation_completed: false, unresolved_reason: `the tests did not finish within ${config.evaluation_timeout} s` };
      const failure = infrastructureFailure(result);
      if (failure !== undefined) throw new NgymError('NGYM_SANDBOX', `${task.task_name}: the task's box failed while running the tests (${failure})`, { status: 502 });
      const reward = await readReward(state.provider, handle);
      if ('missing' in reward) return { ...base, reward: 0.0, evaluation_completed: false, unresolved_reason: reward.missing };
      return { ...base, reward: reward.reward, evaluation_completed: true };
    } finally {
      await state.provider.close(handle).catch(() => {});
    }
  },
});
