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
 */
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
