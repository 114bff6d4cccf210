/**
 * Reading the model's text out of response items. Each environment grades the text its upstream rule names;
 * every rule in our environments is one of these helpers (or a join of their results):
 *
 * | upstream rule                                         | helper                                                 |
 * | ----------------------------------------------------- | ------------------------------------------------------ |
 * | `response.output_text` (code_gen, math_with_judge, mcqa, structured_outputs) | `responseOutputText(response)`  |
 * | `output[-1].content[0].text` (calendar, instruction_following) | `firstPartText(output.at(-1))`                |
 * | text parts of the last assistant message joined by "\n" (equivalence_llm_judge) | `assistantMessages` + `messageTexts` |
 * | one message's text, all parts joined (agents, scaffold) | `assistantText(item)`                                 |
 * | the output_text of each assistant message (math_with_code) | `outputText(item)`                                  |
 * | the last assistant message's text, reasoning removed (multichallenge, inverse_if) | `finalAnswerText(response)` |
 */
import { pythonStrip } from '../python-compat/python-str.ts';
import type { MessageItem, Response, ResponseItem } from './responses.ts';

/** Whether an item is a message (`type: "message"`, or a `role` and no `type`, as OpenAI's EasyInputMessage). */
export function isMessage(item: ResponseItem | undefined): item is MessageItem {
  return item !== undefined && (item.type === 'message' || item.type === undefined);
}

/** The message items of `output` with role assistant, in order. */
export function assistantMessages(output: readonly ResponseItem[]): MessageItem[] {
  return output.filter((item): item is MessageItem => isMessage(item) && item.role === 'assistant');
}

/** The texts of a message's content in order: a string content is one text; parts without text (a refusal) are skipped. */
export function messageTexts(item: MessageItem): string[] {
  if (typeof item.content === 'string') return [item.content];
  return item.content.flatMap((part) => (typeof part.text === 'string' ? [part.text] : []));
}

/** The text of an assistant message item (all its texts joined), or undefined for any other item. */
export function assistantText(item: ResponseItem): string | undefined {
  return isMessage(item) && item.role === 'assistant' ? messageTexts(item).join('') : undefined;
}

/**
 * Python's `item.content[0].text` made total: the first content part's text when `item` (of any type: a reasoning
 * item may carry content too) has a list content whose first part has text, else "" (upstream raises or returns
 * nothing there, and grades that as 0).
 */
export function firstPartText(item: ResponseItem | undefined): string {
  const content: unknown = item?.content;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  return typeof first === 'object' && first !== null && 'text' in first && typeof first.text === 'string' ? first.text : '';
}

/** The `output_text` parts of one item joined without separator; "" for an item that is not a message or has string content. */
export function outputText(item: ResponseItem): string {
  if (!isMessage(item) || typeof item.content === 'string') return '';
  return item.content.map((part) => (part.type === 'output_text' && typeof part.text === 'string' ? part.text : '')).join('');
}

/** The Responses API's `output_text`: the `outputText` of every output item, joined without separator. */
export function responseOutputText(response: Pick<Response, 'output'>): string {
  return response.output.map(outputText).join('');
}

// Upstream's four re.sub calls, in order (DOTALL). The patterns are literal tags around "any character", which
// JavaScript matches exactly as Python's re does, so no translation is needed.
const REASONING = [/<think>[\s\S]*?<\/think>/g, /<thinking>[\s\S]*?<\/thinking>/g, /^[\s\S]*?<\/think>/, /^[\s\S]*?<\/thinking>/];

/**
 * The text the rubric-judged environments grade, as upstream 0.7.0's `_extract_text_from_response` reads it from the
 * policy's response and from each judge reply alike: the last assistant message only, its text parts joined with
 * newlines and stripped; then reasoning removed (`<think>…</think>` and `<thinking>…</thinking>` blocks, then
 * everything up to a closing tag left without its opening one, which a chat template that opened the block itself
 * leaves behind) and stripped again. "" when there is no assistant message.
 */
export function finalAnswerText(response: Pick<Response, 'output'>): string {
  const last = assistantMessages(response.output).at(-1);
  if (last === undefined) return '';
  let text = pythonStrip(messageTexts(last).join('\n'));
  for (const pattern of REASONING) text = text.replace(pattern, '');
  return pythonStrip(text);
}
