/**
 * single_step_tool_use_with_argument_comparison: behaviour cloning of one step of an expert tool-use trajectory
 * (tau-style conversations, SWE, search and function-calling pivots). The row holds the conversation so far and the
 * expert's next action; the model's response is scored against it by upstream NeMo Gym 0.7.0's rules: a chat message
 * where a message was expected earns 1; a tool call earns 1 when its name matches and its arguments match value by
 * value (strings by shared words); parallel calls are matched as a set and scored by the config's call-count rules.
 */
import { defineResourcesServer } from 'ngym';
import * as z from 'zod';
import { ExpectedAction, extractAction } from './actions.ts';
import { StepRewardCategory } from './categories.ts';
import { ActionComparator, ToolCallComparatorConfig } from './comparator.ts';

export default defineResourcesServer({
  className: 'SingleStepToolUseArgumentComparisonResourcesServer',
  config: {
    tool_call_comparator_config: ToolCallComparatorConfig,
  },
  setup: ({ config }) => new ActionComparator(config.tool_call_comparator_config),
  verifyRequest: z.looseObject({ expected_action: ExpectedAction }),
  verify: (request, { state: comparator }) => {
    // Upstream answers the action as its model holds it: the keys it declares, and no others.
    const expected = ExpectedAction.parse(request.expected_action);
    const actual = extractAction(request.response.output);
    const scored = actual === undefined ? { reward: 0, category: StepRewardCategory.NO_ACTION_FOUND } : comparator.compareAction(expected, actual);
    return { ...scored, expected_action: expected };
  },
});
