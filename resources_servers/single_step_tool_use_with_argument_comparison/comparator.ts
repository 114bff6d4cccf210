/**
 * Scores the model's action against the expected one, as upstream 0.7.0's `ActionComparator`: a message for a
 * message, a tool call whose name matches and whose arguments match (arguments.ts), and for parallel calls a
 * maximum matching of the two sets, scored by the config's call-count rules (`parallel_tool_call_rewarding`, the
 * `allow_subset`/`allow_superset` gate and `parallel_tool_call_reward_mode`).
 */
import { PythonError } from 'ngym/python-compat';
import { RequestValidationError } from 'ngym';
import * as z from 'zod';
import { type ExpectedAction, type FunctionCallAction, toolCalls } from './actions.ts';
import { argumentDifference, type ArgumentValue, loadArguments } from './arguments.ts';
import { type ActionComparison, StepRewardCategory } from './categories.ts';
import { maximumMatching } from './maximum-matching.ts';

const REWARD_MODES = ['binary_strict', 'fractional', 'f1'] as const;

/** Upstream's `tool_call_comparator_config`, its keys and defaults; a misspelled key is refused rather than ignored. */
export const ToolCallComparatorConfig = z.strictObject({
  /** Strings of two words or more match when their shared-word measure reaches this (0 to 0.5; 0 accepts any). */
  word_count_similarity_threshold: z.number(),
  /** Floats match when closer than this. */
  floating_point_comparison_threshold: z.number().default(1e-6),
  /** Master switch: does the number of calls a response makes affect its reward? Off: surplus calls are free. */
  parallel_tool_call_rewarding: z.boolean().default(false),
  /** With rewarding on: admit responses with fewer calls than expected. */
  allow_subset: z.boolean().default(false),
  /** With rewarding on: admit responses with more calls than expected. */
  allow_superset: z.boolean().default(false),
  /** With rewarding on: `binary_strict` (all required calls or 0), `fractional` (matched share), `f1`. */
  parallel_tool_call_reward_mode: z.enum(REWARD_MODES).default('binary_strict'),
});
export type ToolCallComparatorConfig = z.infer<typeof ToolCallComparatorConfig>;

const result = (reward: number, category: StepRewardCategory): ActionComparison => ({ reward, category });

interface ExpectedCall {
  call: FunctionCallAction;
  /** Where it sits in the row, for the 422 that names it. */
  location: (string | number)[];
}

/**
 * The expected arguments, decoded. Upstream assumes they are JSON and fails with a 500 when they are not, and only
 * once a call of that name is compared; ngym refuses the row there, with a 422 naming the field.
 */
function expectedArguments({ call, location }: ExpectedCall): ArgumentValue {
  try {
    return loadArguments(call.arguments);
  } catch (error) {
    if (!(error instanceof PythonError)) throw error;
    throw new RequestValidationError([
      { type: 'json_invalid', loc: ['body', ...location, 'arguments'], msg: `The expected arguments are not a JSON document: ${error.name}: ${error.message}`, input: call.arguments.slice(0, 200) },
    ]);
  }
}

export class ActionComparator {
  constructor(private readonly config: ToolCallComparatorConfig) {}

  compareAction(expected: ExpectedAction, actual: ExpectedAction): ActionComparison {
    if (expected.type === 'message') {
      // Any chat message earns full credit.
      return actual.type === 'message' ? result(1, StepRewardCategory.EXPECTED_CHAT_MESSAGE_FOUND) : result(0, StepRewardCategory.NO_EXPECTED_CHAT_MESSAGE);
    }
    if (actual.type === 'message') return result(0, StepRewardCategory.NO_EXPECTED_TOOL_CALL);
    const location = ['expected_action'];
    const expectedCalls = toolCalls(expected).map((call, index) => ({ call, location: expected.type === 'function_call_batch' ? [...location, 'calls', index] : location }));
    return this.compareToolCalls(expectedCalls, toolCalls(actual));
  }

  compareToolCall(expected: ExpectedCall, actual: FunctionCallAction): ActionComparison {
    if (expected.call.name !== actual.name) return result(0, StepRewardCategory.UNEXPECTED_TOOL);
    const expectedValue = expectedArguments(expected);
    let actualValue: ArgumentValue;
    try {
      actualValue = loadArguments(actual.arguments);
    } catch (error) {
      // Nesting deeper than Python's recursion limit is a RecursionError upstream (a 500); here it does not decode either.
      if (error instanceof PythonError) return result(0, StepRewardCategory.ARGUMENTS_DECODE_ERROR);
      throw error;
    }
    const difference = argumentDifference(expectedValue, actualValue, this.config);
    return difference === undefined ? result(1, StepRewardCategory.EXPECTED_TOOL_CALL) : result(0, difference);
  }

  /** A set of calls against the expected set, whatever the order they were made in. */
  private compareToolCalls(expected: ExpectedCall[], actual: FunctionCallAction[]): ActionComparison {
    const [onlyExpected] = expected;
    const [onlyActual] = actual;
    // One call for one call keeps the categories from before parallel calls were supported.
    if (expected.length === 1 && actual.length === 1 && onlyExpected !== undefined && onlyActual !== undefined) return this.compareToolCall(onlyExpected, onlyActual);
    if (!this.isCallCountAdmissible(expected.length, actual.length)) return result(0, StepRewardCategory.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);

    const candidates: number[][] = [];
    const failures: StepRewardCategory[] = [];
    for (const expectedCall of expected) {
      const matches: number[] = [];
      let failure: StepRewardCategory = StepRewardCategory.UNEXPECTED_TOOL;
      for (const [index, actualCall] of actual.entries()) {
        const comparison = this.compareToolCall(expectedCall, actualCall);
        if (comparison.reward === 1) matches.push(index);
        // The first reason that got past the tool name explains the closest near miss.
        else if (failure === StepRewardCategory.UNEXPECTED_TOOL) failure = comparison.category;
      }
      candidates.push(matches);
      failures.push(failure);
    }
    const matching = maximumMatching(candidates);
    const reward = this.scoreMatchedCalls(matching.size, expected.length, actual.length);
    if (reward === 1) return result(reward, expected.length === 1 ? StepRewardCategory.EXPECTED_TOOL_CALL : StepRewardCategory.EXPECTED_TOOL_CALL_BATCH);

    const matched = new Set(matching.values());
    const firstUnmatched = expected.findIndex((_, index) => !matched.has(index));
    // Every expected call matched (surplus calls), or every actual call was used (missing calls): the count is the defect.
    if (firstUnmatched === -1 || matched.size === actual.length) return result(reward, StepRewardCategory.FUNCTION_CALL_BATCH_LENGTH_DIFFERENT);
    return result(reward, failures[firstUnmatched] as StepRewardCategory);
  }

  private isCallCountAdmissible(expectedCount: number, actualCount: number): boolean {
    if (actualCount === expectedCount || !this.config.parallel_tool_call_rewarding) return true;
    return actualCount < expectedCount ? this.config.allow_subset : this.config.allow_superset;
  }

  private scoreMatchedCalls(matchedCount: number, expectedCount: number, actualCount: number): number {
    // With rewarding off the count is no part of the verdict: full credit when every expected call was matched.
    if (!this.config.parallel_tool_call_rewarding) return matchedCount === expectedCount ? 1 : 0;
    if (this.config.parallel_tool_call_reward_mode === 'f1') {
      const totalCount = expectedCount + actualCount;
      return totalCount === 0 ? 0 : (2 * matchedCount) / totalCount;
    }
    const requiredCount = this.config.allow_subset ? Math.min(expectedCount, actualCount) : expectedCount;
    if (this.config.parallel_tool_call_reward_mode === 'fractional') return requiredCount === 0 ? 0 : matchedCount / requiredCount;
    return matchedCount === requiredCount ? 1 : 0;
  }
}
