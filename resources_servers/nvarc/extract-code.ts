/**
 * The Python program in a model's answer (inductive mode), by NeMo Gym 0.7.0's nvarc rule: after dropping
 * `<think>` blocks, the last ```python block, else the last bare ``` block, else the whole answer when it mentions
 * `def transform`. The fences are Python regexes (`\s` is Python's whitespace), so they run as Python runs them.
 */
import { PythonRegex, pythonStrip } from 'ngym/python-compat';
import { stripThinking } from './grid.ts';

const FENCES = ['```python\\s*\\n(.*?)```', '```\\s*\\n(.*?)```'].map((pattern) => PythonRegex.compile(pattern, { dotAll: true }));

/** The program, stripped (possibly empty), or null when the answer holds none. */
export function extractPythonCode(text: string): string | null {
  const answer = stripThinking(text);
  for (const fence of FENCES) {
    const last = fence.finditer(answer).at(-1);
    if (last !== undefined) return pythonStrip(last.groups[0] ?? '');
  }
  return answer.includes('def transform') ? answer : null;
}
