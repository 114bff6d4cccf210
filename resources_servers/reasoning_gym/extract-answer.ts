/**
 * Upstream's answer extraction: the text of every output_text part of every message item, joined; then
 * the last `<answer>...</answer>` (one whitespace trimmed inside each tag, then stripped), else the first
 * `\boxed{...}` group (stripped), else the whole text stripped.
 */
import { type Response } from 'ngym';
import { PYTHON_WHITESPACE, pythonStrip } from 'ngym/python-compat';

const ANSWER_TAG = new RegExp(`<answer>[${PYTHON_WHITESPACE}]?([\\s\\S]*?)[${PYTHON_WHITESPACE}]?</answer>`, 'gu');
const BOXED = /\\boxed\{([^}]+)\}/u;

/** Concatenated text of the message items' output_text parts (string contents are taken whole). */
export function responseText(response: Response): string {
  const parts: string[] = [];
  for (const item of response.output) {
    if (item.type === 'function_call' || item.type === 'function_call_output' || item.type === 'reasoning') continue;
    if (typeof item.content === 'string') parts.push(item.content);
    else for (const part of item.content) if (part.type === 'output_text' && typeof part.text === 'string') parts.push(part.text);
  }
  return parts.join('');
}

export function extractAnswer(text: string): string {
  let last: string | undefined;
  for (const match of text.matchAll(ANSWER_TAG)) last = match[1];
  if (last !== undefined) return pythonStrip(last);
  const boxed = BOXED.exec(text);
  if (boxed !== null) return pythonStrip(boxed[1] as string);
  return pythonStrip(text);
}
