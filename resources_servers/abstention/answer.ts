/**
 * Reading the policy's answer and the judge's grade as NeMo Gym 0.7.0's abstention server does: the text of the
 * last assistant message with thinking removed, the last `\boxed{...}` in it, the SQuAD-style normalisation that
 * decides whether that answer is the abstention token, and the single-letter grade (A correct, B incorrect,
 * C not attempted) of the judge's reply. Where the result depends on Python (whitespace, `\b`, `\w`), it follows
 * Python's rules (ngym/python-compat).
 */
import { assistantMessages, messageTexts, type Response } from 'ngym';
import { PythonRegex, pythonSplit, pythonStrip } from 'ngym/python-compat';

/** Removes `<think>...</think>` and `<thinking>...</thinking>` blocks, and everything before an unpaired closing tag. */
function stripThinkingTraces(text: string): string {
  const paired = text.replace(/<think>[\s\S]*?<\/think>/g, '').replace(/<thinking>[\s\S]*?<\/thinking>/g, '');
  // The opening tag may have been part of the prompt template: the generation then starts inside the thinking.
  return pythonStrip(paired.replace(/^[\s\S]*?<\/think>/, '').replace(/^[\s\S]*?<\/thinking>/, ''));
}

/**
 * The last assistant message that has text parts: its texts joined with "\n", stripped, thinking removed; "" when
 * there is none. A message whose content holds no text (only a refusal) is skipped for an earlier one.
 */
export function lastAssistantText(response: Pick<Response, 'output'>): string {
  for (const message of assistantMessages(response.output).reverse()) {
    const texts = messageTexts(message);
    if (texts.length > 0) return stripThinkingTraces(pythonStrip(texts.join('\n')));
  }
  return '';
}

const ARTICLES = PythonRegex.compile('\\b(a|an|the)\\b');
const PUNCTUATION = PythonRegex.compile('[^\\w\\s]');

/** Python's `regex.sub(replacement, text)` for a pattern that never matches empty text. */
function substitute(regex: PythonRegex, text: string, replacement: string): string {
  let result = '';
  let from = 0;
  for (const match of regex.finditer(text)) {
    result += text.slice(from, match.start) + replacement;
    from = match.end;
  }
  return result + text.slice(from);
}

/** Lower case, articles and punctuation removed, whitespace collapsed: `[IDK]`, `idk.` and `The IDK` are all `idk`. */
export function normalizeAnswer(text: string): string {
  const lowered = pythonStrip(text.toLowerCase());
  return pythonSplit(substitute(PUNCTUATION, substitute(ARTICLES, lowered, ' '), '')).join(' ');
}

export type Grade = 'A' | 'B' | 'C';
const GRADES: readonly Grade[] = ['A', 'B', 'C'];

/**
 * The judge's grade: the whole reply or its last line when that is one letter, else the first of A, B, C found
 * anywhere in it (so a word such as "Correct" reads as C), else B: an unreadable reply is an incorrect answer.
 */
export function parseJudgeGrade(judgeText: string): Grade {
  const cleaned = pythonStrip(judgeText);
  const lastLine = pythonStrip(cleaned.slice(cleaned.lastIndexOf('\n') + 1));
  return GRADES.find((grade) => grade === cleaned) ?? GRADES.find((grade) => grade === lastLine) ?? GRADES.find((grade) => cleaned.includes(grade)) ?? 'B';
}
