/**
 * "Did you mean" for names a user typed: the closest candidate by edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours each count 1), if it is close enough to be a typo.
 */

function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const distance: number[][] = Array.from({ length: rows }, (_, row) => Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let best = Math.min((distance[row - 1]?.[column] ?? 0) + 1, (distance[row]?.[column - 1] ?? 0) + 1, (distance[row - 1]?.[column - 1] ?? 0) + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) best = Math.min(best, (distance[row - 2]?.[column - 2] ?? 0) + 1);
      (distance[row] as number[])[column] = best;
    }
  }
  return distance[a.length]?.[b.length] ?? 0;
}

/** The candidate nearest to `name` when at most a third of it (at least 1, at most 3 edits) differs; else undefined. */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(name.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** " (did you mean `x`?)" or "". */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === undefined ? '' : ` (did you mean \`${closest}\`?)`;
}
