/**
 * swebench: SWE-bench tasks in container boxes, with upstream 0.7.0's config and data shape. `/seed_session` makes
 * the task's box from the row's image (swebench 4.1.0's instance image, or the row's `image`; the sandbox block's
 * image_map maps it to a local one), removes the repository's future history (anti-cheat) and answers its handle,
 * which an agent adopts to work in it. `/verify` takes the agent's `git diff` from that box, applies it in a fresh
 * box of the same image with the tests restored, runs the row's test command and grades the log with swebench's
 * rules (grading/): `resolved`, reward 1 or 0, and upstream's report fields. A patch that does not apply, tests that
 * time out, a log no parser reads, a workdir without its repository: unresolved with the reason. A box or engine that
 * fails: a failed verify naming the cause, never a reward.
 */
import { defineResourcesServer, NgymError, type SandboxHandle, SandboxProviderError } from 'ngym';
import * as z from 'zod';
import { agentDiff, ANTI_CHEAT_SETUP, bashInSessionBox, BOX_SERVER_CONFIG, boxSpec, evaluate, infrastructureFailure, openSessionBoxes } from './boxes.ts';
import { gradeSwebenchLog } from './grading/index.ts';
import { imageOf, logParserOf, type SwebenchInstance, SwebenchInstanceFields, testCommandOf } from './instance.ts';

/** A provider failure as the failed request it causes (the engine or the image, named). */
function boxFailure(instance: SwebenchInstance, what: string, error: unknown): NgymError {
  if (error instanceof NgymError) return new NgymError(error.code, `${instance.instance_id}: ${what}: ${error.message}`, { status: 502 });
  const reason = error instanceof SandboxProviderError ? `${error.reason}: ${error.message}` : (error as Error).message;
  return new NgymError('NGYM_SANDBOX', `${instance.instance_id}: ${what} (image ${imageOf(instance)}): ${reason}`, { status: 502 });
}

export default defineResourcesServer({
  className: 'SwebenchResourcesServer',
  config: {
    ...BOX_SERVER_CONFIG,
    apply_anti_cheating: z.boolean().default(true),
    /** Upstream removes swebench's log folder after each verify; ngym writes none (the log is `test_output`). */
    clear_swebench_debug_logs: z.boolean().default(true),
  },
  setup: ({ config, globalConfig }) => openSessionBoxes(config, globalConfig),
  // Ends every box still open (agents' and verifiers'): none outlives the server.
  close: (state) => state.provider.aclose(),
  seedSessionRequest: SwebenchInstanceFields,
  seedSession: async (row, { config, sessionId, state, logger }) => {
    const previous = state.sessions.get(sessionId);
    if (previous !== undefined) {
      state.sessions.delete(sessionId);
      await state.provider.close(previous);
    }
    let handle: SandboxHandle;
    try {
      handle = await state.provider.create(boxSpec(imageOf(row), row.instance_id, config.sandbox_config, config.name ?? 'swebench', state.defaultMetadata));
    } catch (error) {
      throw boxFailure(row, "could not make the task's box", error);
    }
    state.sessions.set(sessionId, handle);
    if (config.apply_anti_cheating) {
      const result = await state.provider.exec(handle, ANTI_CHEAT_SETUP, { timeout_s: 300 });
      const failure = infrastructureFailure(result);
      if (failure !== undefined || result.return_code !== 0) {
        state.sessions.delete(sessionId);
        await state.provider.close(handle);
        throw new NgymError('NGYM_SANDBOX', `${row.instance_id}: the anti-cheat setup of the task's box failed (${failure ?? `return code ${result.return_code}: ${(result.stderr ?? '').trim().slice(0, 300)}`})`, { status: 502 });
      }
      logger.debug({ instance_id: row.instance_id, output: (result.stdout ?? '').trim() }, 'anti-cheat setup');
    }
    const descriptor = state.provider.serialize_handle === undefined ? { sandbox_id: handle.sandbox_id } : await state.provider.serialize_handle(handle);
    return { sandbox_handle: handle.sandbox_id, sandbox_descriptor: descriptor };
  },
  tools: {
    // ngym's addition: lets a tool-calling agent (simple_agent) work in the box; harness agents adopt it by its handle.
    bash: {
      description: "Run a bash command in the task's box, in the repository's folder; its output and exit code come back. Changes to files persist; the graded patch is the repository's git diff.",
      parameters: z.strictObject({ command: z.string().min(1).describe('A bash command, e.g. "grep -rn foo src".') }),
      handler: ({ command }, { config, sessionId, state }) => bashInSessionBox(state, sessionId, command, config.command_timeout),
    },
  },
  verifyRequest: SwebenchInstanceFields,
  verify: async (request, { config, sessionId, state }) => {
    // Bad rows are refused before any box is made.
    const parser = logParserOf(request);
    testCommandOf(request);
    let modelPatch: string;
    let agentFault: string | undefined;
    if (config.is_verifying_golden_patch) {
      modelPatch = request.patch ?? '';
    } else {
      const handle = state.sessions.get(sessionId);
      if (handle === undefined) throw new NgymError('NGYM_INVALID_REQUEST', `${request.instance_id}: this session has no task box: call /seed_session first (or it was already verified).`, { status: 400 });
      state.sessions.delete(sessionId);
      try {
        const taken = await agentDiff(state.provider, handle);
        if ('infrastructure' in taken) throw new NgymError('NGYM_SANDBOX', `${request.instance_id}: ${taken.infrastructure}; the agent's box is gone or its engine failed`, { status: 502 });
        modelPatch = 'patch' in taken ? taken.patch : '';
        if ('agentFault' in taken) agentFault = taken.agentFault;
      } finally {
        await state.provider.close(handle).catch(() => {});
      }
    }
    const started = performance.now();
    let handle: SandboxHandle;
    try {
      handle = await state.provider.create(boxSpec(imageOf(request), request.instance_id, config.sandbox_config, config.name ?? 'swebench', state.defaultMetadata));
    } catch (error) {
      throw boxFailure(request, 'could not make the verify box', error);
    }
    const startSeconds = (performance.now() - started) / 1000;
    try {
      const evaluation = await evaluate(state.provider, handle, request, modelPatch, config.evaluation_timeout);
      const report = gradeSwebenchLog({ instance: { ...request, FAIL_TO_PASS: request.FAIL_TO_PASS, PASS_TO_PASS: request.PASS_TO_PASS }, log: evaluation.log, modelPatch, parser });
      const reason = evaluation.timedOut ? `the tests did not finish within ${config.evaluation_timeout} s` : (agentFault ?? (modelPatch.trim() === '' ? 'the patch is empty' : report.reason));
      const resolved = report.resolved && !evaluation.timedOut;
      return {
        reward: resolved ? 1.0 : 0.0,
        resolved,
        evaluation_completed: report.evaluation_completed && !evaluation.timedOut,
        eval_sandbox_start_time_taken: startSeconds,
        patch_verification_time_taken: evaluation.seconds,
        instance_id: request.instance_id,
        test_output: evaluation.log,
        model_patch: modelPatch === '' ? null : modelPatch,
        log_dir: '',
        patch_is_None: report.patch_is_None,
        patch_exists: report.patch_exists,
        patch_successfully_applied: report.patch_successfully_applied,
        ...(report.tests_status === undefined ? {} : { tests_status: report.tests_status, resolution_status: report.resolution_status }),
        ...(reason === undefined ? {} : { unresolved_reason: reason }),
      };
    } finally {
      await state.provider.close(handle).catch(() => {});
    }
  },
});
