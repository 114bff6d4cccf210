/**
 * Upstream's answer rule for google_search, reproduced as it behaves: the last output item, when it is an
 * assistant message, is turned into text with Python's `str()` of its content *list*, i.e. the repr of the
 * pydantic parts (`[NeMoGymResponseOutputText(annotations=[], text='...', type='output_text', logprobs=None)]`),
 * and the first `\boxed{...}` in that text (up to the first `}`) is the parsed option. Because the text is a
 * repr, backslashes inside the box are doubled: `\boxed{\text{B}}` parses as `\\text{B`, as upstream recorded.
 */
import { isMessage, type ResponseItem } from 'ngym';
import { pythonRepr, pythonStringRepr } from 'ngym/python-compat';

// `[^\n]` is Python's `.`: JavaScript's also stops at \r and the Unicode line separators.
const BOXED = /\\boxed\{([^\n]*?)\}/;

type ContentPart = Record<string, unknown>;

/** `repr()` of one content part as upstream's pydantic models print it (field order of the models). */
function partRepr(part: ContentPart): string {
  if (part.type === 'refusal') return `NeMoGymResponseOutputRefusal(refusal=${pythonStringRepr(String(part.refusal ?? ''))}, type='refusal')`;
  // Annotations and logprobs are printed as plain values: close to pydantic's repr, and after the text anyway.
  const annotations = pythonRepr(part.annotations ?? []);
  const logprobs = pythonRepr(part.logprobs ?? null);
  return `NeMoGymResponseOutputText(annotations=${annotations}, text=${pythonStringRepr(String(part.text ?? ''))}, type='output_text', logprobs=${logprobs})`;
}

/** Python's `str()` of the last item's content when it is an assistant message, else `"None"`. */
function lastAssistantContentString(output: readonly ResponseItem[]): string {
  const last = output.at(-1);
  if (!isMessage(last) || last.role !== 'assistant') return 'None';
  // An input-style message may carry its content as a string: `str()` of a string is the string.
  if (typeof last.content === 'string') return last.content;
  return `[${(last.content as ContentPart[]).map(partRepr).join(', ')}]`;
}

/** The text inside the first `\boxed{...}` of the last assistant message, as upstream parses it; null when there is none. */
export function parsedOption(output: readonly ResponseItem[]): string | null {
  return BOXED.exec(lastAssistantContentString(output))?.[1] ?? null;
}
