/**
 * Maximum bipartite matching between expected and actual tool calls (Kuhn's augmenting paths), upstream 0.7.0's
 * `find_maximum_matching` step for step. Argument matching is fuzzy, so one actual call can satisfy several
 * expected ones and a greedy pairing can strand an expected call; augmenting paths undo such pairings. The
 * order of the search is upstream's, because which expected call stays unmatched names the failure category.
 */

/** Tries to match `expected`, re-pairing earlier matches along an augmenting path when needed. */
function augment(expected: number, candidates: readonly (readonly number[])[], matching: Map<number, number>, visited: Set<number>): boolean {
  for (const actual of candidates[expected] ?? []) {
    if (visited.has(actual)) continue;
    visited.add(actual);
    const previous = matching.get(actual);
    if (previous === undefined || augment(previous, candidates, matching, visited)) {
      matching.set(actual, expected);
      return true;
    }
  }
  return false;
}

/**
 * `candidates[expected]` lists the actual calls that expected call matches; the answer maps each matched actual
 * call to its expected call. The most constrained expected calls go first (a stable sort, as Python's `sorted`).
 */
export function maximumMatching(candidates: readonly (readonly number[])[]): Map<number, number> {
  const matching = new Map<number, number>();
  const order = candidates.map((_, index) => index).sort((left, right) => (candidates[left]?.length ?? 0) - (candidates[right]?.length ?? 0));
  for (const expected of order) augment(expected, candidates, matching, new Set());
  return matching;
}
