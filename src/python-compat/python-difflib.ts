/**
 * Python's `difflib.SequenceMatcher(None, a, b).ratio()` on strings, which several upstream rewards are
 * (equivalence_rule's `seq_match`, terminus_judge's similarity). No TypeScript library computes the same number: the ratio depends on
 * difflib's own way of finding matching blocks (the longest match first, earliest in `a`, then in `b`, then the
 * same on each side of it) and on its "autojunk" heuristic (when `b` has 200 elements or more, an element that
 * appears more than 1% of the time, plus one, is left out of the search for a longest match, though matches still
 * extend over it). This follows CPython 3.11's code step for step, on code points as Python's `str` holds them.
 */

/** `find_longest_match(alo, ahi, blo, bhi)` without junk: the best block as [i, j, size]. */
function longestMatch(a: readonly number[], b: readonly number[], positionsInB: Map<number, number[]>, alo: number, ahi: number, blo: number, bhi: number): [number, number, number] {
  let bestI = alo;
  let bestJ = blo;
  let bestSize = 0;
  // lengths.get(j): length of the longest match ending with a[i - 1] and b[j].
  let lengths = new Map<number, number>();
  for (let i = alo; i < ahi; i++) {
    const next = new Map<number, number>();
    for (const j of positionsInB.get(a[i] as number) ?? []) {
      if (j < blo) continue;
      if (j >= bhi) break;
      const size = (lengths.get(j - 1) ?? 0) + 1;
      next.set(j, size);
      if (size > bestSize) {
        bestI = i - size + 1;
        bestJ = j - size + 1;
        bestSize = size;
      }
    }
    lengths = next;
  }
  // Popular elements are not in positionsInB, so the block found holds none: extend it over equal ones on both sides.
  while (bestI > alo && bestJ > blo && a[bestI - 1] === b[bestJ - 1]) {
    bestI--;
    bestJ--;
    bestSize++;
  }
  while (bestI + bestSize < ahi && bestJ + bestSize < bhi && a[bestI + bestSize] === b[bestJ + bestSize]) bestSize++;
  return [bestI, bestJ, bestSize];
}

/** Where each element of `b` appears, without the popular ones when `b` is long (difflib's autojunk). */
function positionsOf(b: readonly number[]): Map<number, number[]> {
  const positions = new Map<number, number[]>();
  for (const [index, element] of b.entries()) {
    const list = positions.get(element);
    if (list === undefined) positions.set(element, [index]);
    else list.push(index);
  }
  if (b.length >= 200) {
    const limit = Math.floor(b.length / 100) + 1;
    for (const [element, list] of positions) if (list.length > limit) positions.delete(element);
  }
  return positions;
}

/** How many elements the matching blocks of `a` and `b` cover (`sum(size for ... in get_matching_blocks())`). */
function matchedCount(a: readonly number[], b: readonly number[]): number {
  const positionsInB = positionsOf(b);
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  let matched = 0;
  // The blocks' order does not change their total, so they are summed as found rather than sorted and merged.
  for (let range = queue.pop(); range !== undefined; range = queue.pop()) {
    const [alo, ahi, blo, bhi] = range;
    const [i, j, size] = longestMatch(a, b, positionsInB, alo, ahi, blo, bhi);
    if (size === 0) continue;
    matched += size;
    if (alo < i && blo < j) queue.push([alo, i, blo, j]);
    if (i + size < ahi && j + size < bhi) queue.push([i + size, ahi, j + size, bhi]);
  }
  return matched;
}

const codePoints = (text: string): number[] => Array.from(text, (char) => char.codePointAt(0) as number);

/** `SequenceMatcher(None, a, b).ratio()`: twice the matched code points over both lengths; 1.0 for two empty strings. */
export function pythonSequenceRatio(a: string, b: string): number {
  const left = codePoints(a);
  const right = codePoints(b);
  const length = left.length + right.length;
  return length === 0 ? 1 : (2 * matchedCount(left, right)) / length;
}
