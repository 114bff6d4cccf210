/**
 * The judge's verdict as NeMo Gym 0.7.0's terminus_judge reads it: the text of the last content part of the reply's
 * last output item (when that item is a message); in its last 200 characters the label found last wins (the rubric
 * prompt ends with "Final verdict: ..."); when neither label is there, the label found first in the whole text; none:
 * no verdict. This differs from equivalence_llm_judge's rule, so it is this server's own.
 */
import type { Response } from 'ngym';
import { pythonSlice } from 'ngym/python-compat';

export interface TerminusVerdict {
  equal: boolean;
  /** The label found, null when the reply has none (upstream's `verdict_label`). */
  label: string | null;
}

/** The text upstream reads the verdict from; "" where it finds no text (no output, not a message, a refusal part). */
export function verdictText(response: Response): string {
  const last = response.output.at(-1);
  if (last?.type !== 'message' || !Array.isArray(last.content)) return '';
  const text = (last.content.at(-1) as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : '';
}

export function parseTerminusVerdict(text: string, equalLabel: string, notEqualLabel: string): TerminusVerdict {
  if (text === '') return { equal: false, label: null };
  // Positions are only compared with each other, so UTF-16 offsets order them as Python's do.
  const tail = pythonSlice(text, -200);
  const equalLast = tail.lastIndexOf(equalLabel);
  const notEqualLast = tail.lastIndexOf(notEqualLabel);
  if (equalLast >= 0 && (notEqualLast < 0 || equalLast > notEqualLast)) return { equal: true, label: equalLabel };
  if (notEqualLast >= 0) return { equal: false, label: notEqualLabel };
  const equalFirst = text.indexOf(equalLabel);
  const notEqualFirst = text.indexOf(notEqualLabel);
  if (equalFirst >= 0 && (notEqualFirst < 0 || equalFirst < notEqualFirst)) return { equal: true, label: equalLabel };
  if (notEqualFirst >= 0) return { equal: false, label: notEqualLabel };
  return { equal: false, label: null };
}
