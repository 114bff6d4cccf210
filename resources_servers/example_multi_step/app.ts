/**
 * example_multi_step: the model must look up the value of every synonym of the term its query is about
 * (`get_synonym_value`) and submit them, in the order the system prompt lists them, with
 * `extract_synonym_values`. Reward is 1.0 when the submitted list equals the expected one.
 */
import { defineResourcesServer, type ResponseItem } from 'ngym';
import * as z from 'zod';

/** A synonym's value is the sum of its Unicode code points ("Blazing" -> 711). */
export function synonymValue(synonym: string): number {
  let total = 0;
  for (const char of synonym) total += char.codePointAt(0) ?? 0;
  return total;
}

const SubmittedArguments = z.looseObject({ synonym_values: z.unknown() });

/** The values of the last `extract_synonym_values` call in the trajectory, or [] when there is none. */
export function submittedValues(output: ResponseItem[]): unknown[] {
  for (let index = output.length - 1; index >= 0; index--) {
    const item = output[index];
    if (item?.type === 'function_call' && item.name === 'extract_synonym_values') {
      const values = SubmittedArguments.parse(JSON.parse(item.arguments)).synonym_values;
      return Array.isArray(values) ? values : [];
    }
  }
  return [];
}

export default defineResourcesServer({
  className: 'ExampleMultiStepResourcesServer',
  tools: {
    get_synonym_value: {
      description: 'Get the synonym value for a synonym.',
      parameters: z.strictObject({ synonym: z.string() }),
      handler: ({ synonym }) => ({ synonym_value: synonymValue(synonym) }),
    },
    extract_synonym_values: {
      description: 'Extract the synonym values you retrieved for the term that is relevant to the user query.',
      parameters: z.strictObject({ synonym_values: z.array(z.number().int()) }),
      handler: () => ({ success: true }),
    },
  },
  verifyRequest: z.looseObject({
    expected_synonym_values: z.array(z.number().int()),
    minefield_label_value: z.number().int().optional(),
  }),
  verify: (request) => {
    const expected = request.expected_synonym_values;
    const actual = submittedValues(request.response.output);
    const accuracy = expected.length === actual.length && expected.every((value, index) => value === actual[index]);
    const actualSet = new Set(actual);
    const overlap = new Set(expected.filter((value) => actualSet.has(value))).size;
    const setOverlap = expected.length === 0 ? 0 : overlap / expected.length;
    const minefieldValue = request.minefield_label_value;
    return {
      reward: accuracy ? 1.0 : 0.0,
      parsed_synonym_values: actual,
      accuracy,
      set_overlap: setOverlap,
      original_term_minefield_hit: actual.some((value) => value === request.minefield_label) || (minefieldValue !== undefined && actual.includes(minefieldValue)),
      order_instruction_following_failure: !accuracy && setOverlap === 1.0,
    };
  },
});
