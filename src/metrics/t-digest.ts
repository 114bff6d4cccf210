/**
 * The t-digest upstream's dataset metrics use for their Median (Python package `tdigest`: Dunning's online
 * algorithm, delta 0.01, K 25, centroids keyed by mean, an interpolated 50th percentile), so medians
 * match upstream's committed `*_metrics.json`.
 *
 * A centroid absorbs a value only while its weight stays under `4 * n * delta * q * (1 - q)`, which is
 * below 2 until n reaches 200: up to then every distinct value is its own centroid and the result is
 * exactly upstream's. Beyond that, upstream picks among equidistant centroids at random and merges
 * digests in a random order, so its own medians vary from run to run; we break ties and order merges
 * deterministically, which gives an estimate of the same quality (docs/decisions/0007).
 */

const DELTA = 0.01;
const K = 25;

export class TDigest {
  /** Centroid means, ascending, and their weights (parallel arrays). */
  private means: number[] = [];
  private counts: number[] = [];
  /** Total weight. */
  n = 0;

  get size(): number {
    return this.means.length;
  }

  /** Adds `x` with weight `w` (upstream `TDigest.update`). */
  update(x: number, w = 1): void {
    this.n += w;
    if (this.means.length === 0) {
      this.insert(x, w);
      return;
    }
    let remaining = w;
    // Candidates by mean: updating the first one re-sorts the arrays and moves indices.
    for (const candidate of this.closest(x).map((index) => this.means[index] as number)) {
      if (remaining <= 0) break;
      const position = this.lowerBound(candidate);
      const count = this.counts[position] as number;
      const threshold = this.threshold(this.quantileOf(position));
      if (count + remaining > threshold) continue;
      const deltaWeight = Math.min(threshold - count, remaining);
      const mean = this.means[position] as number;
      this.removeAt(position);
      const newCount = count + deltaWeight;
      this.insert(mean + (deltaWeight * (x - mean)) / newCount, newCount);
      remaining -= deltaWeight;
    }
    if (remaining > 0) this.insert(x, remaining);
    if (this.means.length > K / DELTA) this.compress();
  }

  /** A new digest holding both (upstream `__add__`). */
  merge(other: TDigest): TDigest {
    const merged = new TDigest();
    for (const digest of [this, other]) {
      for (let index = 0; index < digest.means.length; index++) merged.update(digest.means[index] as number, digest.counts[index] as number);
    }
    return merged;
  }

  /** The p-th percentile, p in [0, 100] (upstream `percentile`). */
  percentile(p: number): number {
    if (!(p >= 0 && p <= 100)) throw new RangeError('p must be between 0 and 100, inclusive.');
    if (this.means.length === 0) return 0;
    const target = (p / 100) * this.n;
    if (target === 0) return this.means[0] as number;
    let cumulative = 0;
    for (let index = 0; index < this.means.length; index++) {
      const count = this.counts[index] as number;
      if (index === 0) {
        cumulative += count / 2;
        continue;
      }
      const previousCount = this.counts[index - 1] as number;
      const step = (count + previousCount) / 2;
      if (target < cumulative + step) {
        const z1 = target - cumulative;
        const z2 = cumulative + step - target;
        return ((this.means[index - 1] as number) * z2 + (this.means[index] as number) * z1) / (z1 + z2);
      }
      cumulative += step;
    }
    return this.means.at(-1) as number;
  }

  private threshold(q: number): number {
    return 4 * this.n * DELTA * q * (1 - q);
  }

  private quantileOf(position: number): number {
    // Sum the shorter side: the weight left of the centroid is n minus the weight from it rightwards.
    let left = 0;
    if (position <= this.means.length / 2) {
      for (let index = 0; index < position; index++) left += this.counts[index] as number;
    } else {
      let right = 0;
      for (let index = position; index < this.counts.length; index++) right += this.counts[index] as number;
      left = this.n - right;
    }
    return ((this.counts[position] as number) / 2 + left) / this.n;
  }

  /** Indices of the centroids nearest to x: one, or the two neighbours when they are equally far. */
  private closest(x: number): number[] {
    const ceiling = this.lowerBound(x);
    if (ceiling === this.means.length) return [ceiling - 1];
    if ((this.means[ceiling] as number) === x || ceiling === 0) return [ceiling];
    const floor = ceiling - 1;
    const floorDistance = Math.abs((this.means[floor] as number) - x);
    const ceilingDistance = Math.abs((this.means[ceiling] as number) - x);
    if (floorDistance < ceilingDistance) return [floor];
    if (floorDistance === ceilingDistance) return [ceiling, floor];
    return [ceiling];
  }

  private lowerBound(x: number): number {
    let low = 0;
    let high = this.means.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.means[middle] as number) < x) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Inserts a centroid; one with the same mean absorbs its weight instead, as upstream's tree keyed by mean. */
  private insert(mean: number, count: number): void {
    const position = this.lowerBound(mean);
    if (this.means[position] === mean) {
      this.counts[position] = (this.counts[position] as number) + count;
      return;
    }
    this.means.splice(position, 0, mean);
    this.counts.splice(position, 0, count);
  }

  private removeAt(position: number): void {
    this.means.splice(position, 1);
    this.counts.splice(position, 1);
  }

  private compress(): void {
    const rebuilt = new TDigest();
    // Upstream re-adds centroids in a random order; a fixed stride through them spreads the same way.
    const total = this.means.length;
    const stride = coprimeStride(total);
    for (let step = 1; step <= total; step++) {
      const index = (step * stride) % total;
      rebuilt.update(this.means[index] as number, this.counts[index] as number);
    }
    this.means = rebuilt.means;
    this.counts = rebuilt.counts;
  }
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** A step near the golden ratio of n that is coprime to n, so `i * step mod n` visits every index once. */
function coprimeStride(n: number): number {
  let stride = Math.max(1, Math.round(n * 0.618));
  while (gcd(stride, n) !== 1) stride++;
  return stride;
}
