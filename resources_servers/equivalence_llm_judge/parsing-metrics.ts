/**
 * NeMo Gym 0.7.0's run metric for this environment: how often the judge's reply was hard to read. A rollout counts
 * once, whatever number of judge calls it made: it has an issue when any of its evaluations has one, and each
 * kind of issue counts once per rollout. Rollouts without a readable evaluation are left out of the rates.
 */
import { type VerdictLabels } from 'ngym';
import { isPythonDict } from 'ngym/python-compat';
import { parseReplyText } from './verdict.ts';

type Json = Record<string, unknown>;

export const JUDGEMENT_PARSING_ISSUE_RATE = 'judgement_parsing_issue_rate';
/** Older rollouts marked a failed judge call in band with this label; such an evaluation measured nothing. */
const JUDGE_ERROR_LABEL = 'JUDGE_ERROR';

/**
 * `judgement_parsing_issue_rate` (rollouts with any issue / rollouts judged) and `judgement_parsing_issue_rate/<kind>`
 * per kind seen; nothing when no rollout was judged.
 */
export function judgementParsingMetrics(tasks: readonly Json[][], labels: VerdictLabels): Json {
  const kindCounts = new Map<string, number>();
  let judged = 0;
  let withIssues = 0;
  for (const rollout of tasks.flat()) {
    const evaluations = Array.isArray(rollout.judge_evaluations) ? rollout.judge_evaluations : [];
    const issues = new Set<string>();
    let measured = false;
    for (const evaluation of evaluations) {
      if (!isPythonDict(evaluation) || Object.keys(evaluation).length === 0 || evaluation.verdict_label === JUDGE_ERROR_LABEL) continue;
      const found = recordedIssues(evaluation, labels);
      if (found === undefined) continue;
      measured = true;
      for (const issue of found) issues.add(issue);
    }
    if (!measured) continue;
    judged++;
    if (issues.size > 0) withIssues++;
    for (const issue of issues) kindCounts.set(issue, (kindCounts.get(issue) ?? 0) + 1);
  }
  if (judged === 0) return {};
  const metrics: Json = { [JUDGEMENT_PARSING_ISSUE_RATE]: withIssues / judged };
  for (const [kind, count] of [...kindCounts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) metrics[`${JUDGEMENT_PARSING_ISSUE_RATE}/${kind}`] = count / judged;
  return metrics;
}

/**
 * An evaluation's issues: its `judgement_parsing_issues` list, or, when that is absent (verify leaves it out when
 * there were none; rollouts from before 0.7.0 never have it), read again from the saved judge response with this
 * server's labels. Undefined when neither is there.
 */
function recordedIssues(evaluation: Json, labels: VerdictLabels): string[] | undefined {
  const recorded = evaluation.judgement_parsing_issues;
  if (Array.isArray(recorded)) return recorded.filter((issue): issue is string => typeof issue === 'string');
  const response = evaluation.response;
  if (!isPythonDict(response)) return undefined;
  return parseReplyText(savedReplyText(response), labels, response.status === 'incomplete').issues;
}

/**
 * The text of a saved (JSON) judge response the verdict is read from, as verify reads it: the last content part of
 * the last output item when that item is a message; null when there is no such part, or its text is not a string.
 */
function savedReplyText(response: Json): string | null {
  const output = response.output;
  const last = Array.isArray(output) ? output.at(-1) : undefined;
  if (!isPythonDict(last) || last.type !== 'message') return null;
  const part = Array.isArray(last.content) ? last.content.at(-1) : undefined;
  if (!isPythonDict(part)) return null;
  if (!('text' in part)) return '';
  return typeof part.text === 'string' ? part.text : null;
}
