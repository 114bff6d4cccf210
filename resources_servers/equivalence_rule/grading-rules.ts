/**
 * equivalence_rule's three grading rules, upstream 0.7.0's: both texts normalized (Python's strip, lower, and every
 * run of Python whitespace made one space), then `exact` (1 or 0), `seq_match` (difflib's ratio) or
 * `weighted_seq_match` (85% the ratio, 15% the ratio of the response's start to the answer's first 10 characters).
 */
import { PYTHON_WHITESPACE, pythonLength, pythonLower, pythonSequenceRatio, pythonSlice, pythonStrip } from 'ngym/python-compat';

export const GRADING_RULES = ['seq_match', 'weighted_seq_match', 'exact'] as const;
export type GradingRule = (typeof GRADING_RULES)[number];

const WHITESPACE_RUN = new RegExp(`[${PYTHON_WHITESPACE}]+`, 'g');

/** `re.sub(r"\s+", " ", text.strip().lower())`. */
function normalize(text: string): string {
  return pythonLower(pythonStrip(text)).replace(WHITESPACE_RUN, ' ');
}

function weightedSequenceMatch(response: string, answer: string): number {
  const similarity = pythonSequenceRatio(response, answer);
  // The prefix is counted in code points, as Python slices a str.
  const prefix = pythonSlice(answer, 0, 10);
  const prefixSimilarity = pythonSequenceRatio(pythonSlice(response, 0, pythonLength(prefix)), prefix);
  return Math.max(0, Math.min(1, 0.85 * similarity + 0.15 * prefixSimilarity));
}

/** The equivalence score of `response` against `answer` under `rule`, in [0, 1]. */
export function grade(response: string, answer: string, rule: GradingRule): number {
  const normalizedResponse = normalize(response);
  const normalizedAnswer = normalize(answer);
  if (rule === 'exact') return normalizedResponse === normalizedAnswer ? 1 : 0;
  if (rule === 'seq_match') return pythonSequenceRatio(normalizedResponse, normalizedAnswer);
  return weightedSequenceMatch(normalizedResponse, normalizedAnswer);
}
