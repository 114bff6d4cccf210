/**
 * Why a step got its reward: upstream 0.7.0's `StepRewardCategory` values, word for word, since rollouts carry them
 * as `category` and dashboards group by the text.
 */
export const StepRewardCategory = {
  NO_ACTION_FOUND: 'No tool call or chat message was found in the response',
  NO_EXPECTED_TOOL_CALL: 'No tool call was found when one was expected',
  EXPECTED_CHAT_MESSAGE_FOUND: 'A chat message was found as expected',
  NO_EXPECTED_CHAT_MESSAGE: 'A tool call was executed when a chat message was expected',
  UNEXPECTED_TOOL: 'The tool in a tool call is not the expected tool',
  ARGUMENTS_DECODE_ERROR: 'An error occurred when decoding the arguments string in a tool call as a JSON object',
  ARGUMENT_VALUE_TYPE_DIFFERENT: 'The type of an argument value in a tool call is different than the expected type',
  ARGUMENT_OBJECT_KEYS_DIFFERENT: 'The keys in an object in an argument value in a tool call are different than the keys in the expected object',
  ARGUMENT_LIST_LENGTH_DIFFERENT: 'A list in an argument value in a tool call has a different length than the expected list',
  ARGUMENT_VALUE_DIFFERENT: 'An argument value in a tool call is different than the expected value',
  EXPECTED_TOOL_CALL: 'A tool call that matches the expected tool call was found',
  FUNCTION_CALL_BATCH_LENGTH_DIFFERENT: 'The number of tool calls in a batch is different than expected',
  EXPECTED_TOOL_CALL_BATCH: 'A tool-call batch that matches the expected tool calls was found',
} as const;

export type StepRewardCategory = (typeof StepRewardCategory)[keyof typeof StepRewardCategory];

export interface ActionComparison {
  reward: number;
  category: StepRewardCategory;
}
