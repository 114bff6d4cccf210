/**
 * multichallenge's verdict rule (upstream 0.7.0's `_extract_verdict`): of the two labels, the one found LAST in the
 * judge's text wins; with neither, the last line decides (`YES` anywhere in it, in upper case, is a yes; anything
 * else, `NO` or nothing, is a no). Positions compare the same in UTF-16 units as in Python's code points.
 */
import { pythonStrip } from 'ngym/python-compat';

export type YesNo = 'YES' | 'NO';

export function yesNoVerdict(text: string, yesLabel: string, noLabel: string): YesNo {
  const yesAt = text.lastIndexOf(yesLabel);
  const noAt = text.lastIndexOf(noLabel);
  if (yesAt < 0 && noAt < 0) {
    const lastLine = pythonStrip(pythonStrip(text).split('\n').at(-1) ?? '').toUpperCase();
    return lastLine.includes('YES') ? 'YES' : 'NO';
  }
  return yesAt > noAt ? 'YES' : 'NO';
}

/** Whether a verdict meets an item's `pass_criteria`: `NO` (any case) wants a no, anything else a yes. */
export const meetsCriteria = (verdict: YesNo, passCriteria: string): boolean => verdict === (passCriteria.toUpperCase() === 'NO' ? 'NO' : 'YES');
