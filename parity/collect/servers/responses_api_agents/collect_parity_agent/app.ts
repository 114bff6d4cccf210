/**
 * The agent of `npm run parity:collect`'s resume cases (agent `omega`): simple_agent's loop, except that a row whose
 * prompt says `timeout_once` is answered, on its first attempt only (no `_ng_attempt_index`, which both collectors
 * stamp on a retry a resume makes), with the failure record an agent writes when its per-task timeout fires:
 * `_ng_failure_class: timeout_exceeded`, stamped `_ng_failure_terminal` (as Stirrup's older builds did), with the
 * `elapsed_seconds` the prompt's `elapsed=<s>` gives.
 */
import { defineAgent, ModelServerRef, RawJson, ResourcesServerRef, respondWithTools, runAgentRollout } from 'ngym';

function promptOf(row: Record<string, unknown>): string {
  const input = (row.responses_create_params as { input?: unknown } | undefined)?.input;
  return typeof input === 'string' ? input : JSON.stringify(input ?? '');
}

export default defineAgent({
  className: 'CollectParityAgent',
  config: { resources_server: ResourcesServerRef, model_server: ModelServerRef },
  responses: respondWithTools,
  run: (row, context) => {
    const prompt = promptOf(row);
    if (/\btimeout_once\b/.test(prompt) && (row as { _ng_attempt_index?: unknown })._ng_attempt_index === undefined) {
      const elapsed = Number(/\belapsed=(\d+)/.exec(prompt)?.[1] ?? 60);
      return Promise.resolve(
        new RawJson(
          JSON.stringify({
            _ng_failure_class: 'timeout_exceeded',
            _ng_failure_terminal: true,
            _ng_failure_message: `collect_parity_agent: the per-task timeout fired after ${elapsed} s, as the prompt asked`,
            elapsed_seconds: elapsed,
          }),
        ),
      );
    }
    return runAgentRollout(row, context, respondWithTools);
  },
});
