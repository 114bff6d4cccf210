/**
 * coding_tasks: fix a bug so the tests pass. Each rollout gets its own workspace, a host directory made from
 * the task's files (`workspace_path` in the `/seed_session` answer, for harness agents that work in it
 * directly); simple_agent edits it through the tools. Code runs only in the sandbox. `verify` runs the task's
 * tests on the workspace as the agent left it, with the task's test files put back first: 1.0 when they pass,
 * 0.0 when they fail; tests that time out or cannot run are a failed verify, not a 0.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineResourcesServer, NgymError, Sandbox, sandboxConfigSchema, type SandboxRunResult, Semaphore, SessionStore, succeeded } from 'ngym';
import * as z from 'zod';
import { clipOutput, runShellCommand, runTaskTests, type TaskTests } from './execution.ts';
import { Workspace, workspaceSegments } from './workspace.ts';

const TaskFile = z.strictObject({ path: z.string().min(1), content: z.string() });

/** A row's task: the workspace's files, which of them are tests, and the argv that runs the tests. */
const TaskFields = z
  .looseObject({
    task_id: z.string().min(1),
    files: z.array(TaskFile).min(1),
    test_files: z.array(z.string().min(1)).min(1),
    test_command: z.array(z.string().min(1)).min(1),
  })
  .superRefine((task, context) => {
    const paths = new Set<string>();
    task.files.forEach((file, index) => {
      try {
        paths.add(workspaceSegments(file.path).join('/'));
      } catch (error) {
        context.addIssue({ code: 'custom', path: ['files', index, 'path'], message: (error as Error).message });
      }
    });
    task.test_files.forEach((path, index) => {
      let normalized: string;
      try {
        normalized = workspaceSegments(path).join('/');
      } catch (error) {
        context.addIssue({ code: 'custom', path: ['test_files', index], message: (error as Error).message });
        return;
      }
      if (!paths.has(normalized)) context.addIssue({ code: 'custom', path: ['test_files', index], message: `${JSON.stringify(path)} is not among the task's files` });
    });
  });

interface Session {
  workspace: Workspace;
  task: TaskTests;
}

const TIMED_OUT = new Set<SandboxRunResult['status']>(['wall_timeout', 'cpu_timeout']);

export default defineResourcesServer({
  className: 'CodingTasksResourcesServer',
  config: {
    /** Where the rollouts' workspaces are made (one folder each). */
    workspaces_dir: z.string().min(1).default(join(tmpdir(), 'ngym-coding-tasks')),
    /** Keep a workspace after its verify (for inspection); by default it is removed once scored. */
    keep_workspaces: z.boolean().default(false),
    test_timeout_seconds: z.number().positive().default(30),
    command_timeout_seconds: z.number().positive().default(30),
    /** Longest command or test output handed to the model (its start and end are kept). */
    max_output_chars: z.number().int().positive().default(8000),
    /** Sandbox runs at once (tests and commands of every rollout). */
    num_processes: z.number().int().positive().default(8),
    sandbox: sandboxConfigSchema,
  },
  setup: async ({ config }) => {
    const sandbox = await Sandbox.checkedFromConfig(config.sandbox);
    // Every workspace not yet removed, so that closing the server removes them all.
    const live = new Set<Workspace>();
    const sessions = new SessionStore<Session>({
      onEvict: (session) => {
        live.delete(session.workspace);
        void session.workspace.remove();
      },
    });
    return { sandbox, sessions, live, slots: new Semaphore(config.num_processes) };
  },
  close: async (state) => {
    await state.sandbox.close();
    await Promise.all([...state.live].map((workspace) => workspace.remove()));
  },
  seedSessionRequest: TaskFields,
  seedSession: async (row, { config, sessionId, state }) => {
    const previous = state.sessions.get(sessionId);
    if (previous !== undefined) {
      state.live.delete(previous.workspace);
      await previous.workspace.remove();
    }
    const workspace = await Workspace.create(config.workspaces_dir, row.files);
    state.live.add(workspace);
    state.sessions.set(sessionId, { workspace, task: { files: row.files, test_files: row.test_files, test_command: row.test_command } });
    return { workspace_path: workspace.root, test_command: row.test_command };
  },
  tools: {
    list_files: {
      description: 'List the files of the workspace (paths relative to it).',
      parameters: z.strictObject({}),
      handler: async (_, { sessionId, state }) => ({ files: await seeded(state.sessions, sessionId).workspace.list() }),
    },
    read_file: {
      description: 'Read a file of the workspace.',
      parameters: z.strictObject({ path: z.string().describe('Path relative to the workspace, e.g. "stats.py".') }),
      handler: async ({ path }, { sessionId, state }) => ({ content: await seeded(state.sessions, sessionId).workspace.read(path) }),
    },
    write_file: {
      description: 'Write a file of the workspace, replacing its whole content (made if missing).',
      parameters: z.strictObject({ path: z.string().describe('Path relative to the workspace.'), content: z.string().describe('The complete new content.') }),
      handler: async ({ path, content }, { sessionId, state }) => {
        await seeded(state.sessions, sessionId).workspace.write(path, content);
        return { success: true };
      },
    },
    run_tests: {
      description: "Run the task's tests on the workspace (in a sandbox) and show their output.",
      parameters: z.strictObject({}),
      handler: async (_, { config, sessionId, state }) => {
        const { workspace, task } = seeded(state.sessions, sessionId);
        const { result, restoredTestFiles } = await state.slots.run(() => runTaskTests(state.sandbox, workspace, task, config.test_timeout_seconds));
        return {
          passed: succeeded(result),
          status: result.status,
          exit_code: result.exitCode,
          output: clipOutput(result.stdout, config.max_output_chars),
          restored_test_files: restoredTestFiles,
        };
      },
    },
    run_command: {
      description: 'Run a shell command in the workspace (in a sandbox without network); files it changes are kept.',
      parameters: z.strictObject({ command: z.string().min(1).describe('A command for sh -c, run in the workspace.') }),
      handler: async ({ command }, { config, sessionId, state }) => {
        const { workspace } = seeded(state.sessions, sessionId);
        const outcome = await state.slots.run(() => runShellCommand(state.sandbox, workspace, command, config.command_timeout_seconds));
        return { ...outcome, output: clipOutput(outcome.output, config.max_output_chars) };
      },
    },
  },
  verifyRequest: TaskFields,
  verify: async (request, { config, sessionId, state }) => {
    const session = seeded(state.sessions, sessionId);
    const { result, restoredTestFiles } = await state.slots.run(() => runTaskTests(state.sandbox, session.workspace, request, config.test_timeout_seconds));
    if (TIMED_OUT.has(result.status)) {
      throw new NgymError('NGYM_SANDBOX', `The tests of task ${request.task_id} did not finish within ${config.test_timeout_seconds} s (${result.status}): a failed verify, not a reward.`, { status: 504 });
    }
    if (result.status === 'exec_failed' || result.status === 'killed') {
      throw new NgymError('NGYM_SANDBOX', `The tests of task ${request.task_id} could not run (${result.status}: ${result.reason ?? 'no reason given'}).`, { status: 500 });
    }
    if (!config.keep_workspaces) {
      state.sessions.delete(sessionId);
      state.live.delete(session.workspace);
      await session.workspace.remove();
    }
    const passed = succeeded(result);
    return {
      reward: passed ? 1.0 : 0.0,
      tests_passed: passed,
      test_status: result.status,
      test_exit_code: result.exitCode,
      test_output: clipOutput(result.stdout, config.max_output_chars),
      restored_test_files: restoredTestFiles,
    };
  },
});

/** The rollout's session; a tool or verify before `/seed_session` is refused with the reason. */
function seeded(sessions: SessionStore<Session>, sessionId: string): Session {
  const session = sessions.get(sessionId);
  if (session === undefined) {
    throw new NgymError('NGYM_INVALID_REQUEST', 'This session has no workspace: call /seed_session with the task first (or it was already verified).', { status: 400 });
  }
  return session;
}
