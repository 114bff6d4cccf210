/**
 * equivalence_llm_judge's verdict rule (NeMo Gym 0.7.0), which differs from the shared first-label rule of
 * src/judge/verdict.ts: every label in the judge's last text counts, left to right, each match consumed (so
 * `INCORRECT` is not also read as `CORRECT`), and the LAST one is the verdict. What looked wrong with the reply
 * is recorded per evaluation as `judgement_parsing_issues`.
 */
import type { Response, VerdictLabels } from 'ngym';

type ParsingIssue = 'no_verdict' | 'conflicting_verdicts' | 'repeated_verdict' | 'truncated_judge_output' | 'unparseable_judge_output';

export interface EquivalenceVerdict {
  equal: boolean;
  /** The last label found, or null. */
  label: string | null;
  issues: ParsingIssue[];
}

/**
 * The text the verdict is read from: the last content part of the last output item when that item is a message
 * ("" when that part has no text), or null when there is no such part (no output, another item type, no content).
 */
export function judgeReplyText(response: Response): string | null {
  const last = response.output.at(-1);
  if (last === undefined || last.type !== 'message') return null;
  const content = (last as { content?: unknown }).content;
  if (!Array.isArray(content) || content.length === 0) return null;
  const text = (content.at(-1) as { text?: unknown } | null)?.text;
  return typeof text === 'string' ? text : '';
}

/** The labels in `text` in order, non-overlapping; where both start at one place the longer wins. */
export function matchLabels(text: string, labels: VerdictLabels): string[] {
  const found: string[] = [];
  let from = 0;
  while (from < text.length) {
    const equalAt = labels.equal ? text.indexOf(labels.equal, from) : -1;
    const notEqualAt = labels.notEqual ? text.indexOf(labels.notEqual, from) : -1;
    if (equalAt < 0 && notEqualAt < 0) break;
    let label: string;
    let at: number;
    if (equalAt === notEqualAt) [label, at] = [labels.equal.length > labels.notEqual.length ? labels.equal : labels.notEqual, equalAt];
    else if (notEqualAt < 0 || (equalAt >= 0 && equalAt < notEqualAt)) [label, at] = [labels.equal, equalAt];
    else [label, at] = [labels.notEqual, notEqualAt];
    found.push(label);
    from = at + label.length;
  }
  return found;
}

export function parseEquivalenceVerdict(response: Response, labels: VerdictLabels): EquivalenceVerdict {
  return parseReplyText(judgeReplyText(response), labels, response.status === 'incomplete');
}

/** The verdict in a judge reply's text (null: the reply had no text to read); `truncated`: the reply was cut off. */
export function parseReplyText(text: string | null, labels: VerdictLabels, truncated: boolean): EquivalenceVerdict {
  if (text === null) return { equal: false, label: null, issues: truncated ? ['truncated_judge_output', 'unparseable_judge_output'] : ['unparseable_judge_output'] };
  const found = matchLabels(text, labels);
  const equalCount = found.filter((label) => label === labels.equal).length;
  const notEqualCount = found.filter((label) => label === labels.notEqual).length;
  const issues: ParsingIssue[] = [];
  if (found.length === 0) {
    if (truncated) issues.push('truncated_judge_output');
    issues.push('no_verdict');
  } else {
    if (equalCount > 0 && notEqualCount > 0) issues.push('conflicting_verdicts');
    if (equalCount > 1 || notEqualCount > 1) issues.push('repeated_verdict');
  }
  const label = found.at(-1) ?? null;
  // Identical labels can never tell "equal" apart.
  return { equal: labels.equal !== labels.notEqual && label === labels.equal, label, issues };
}
