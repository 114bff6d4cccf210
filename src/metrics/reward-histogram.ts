/** The distribution of a run's rewards as bars: one per distinct reward when there are few, else equal bins. */

export interface HistogramBin {
  label: string;
  from: number;
  to: number;
  /** Whether `to` belongs to the bin (the last bin, and single-value bins). */
  inclusive: boolean;
  count: number;
}

/** One bar per distinct reward when there are few (binary or graded rewards), else ten equal bins. */
export function rewardHistogram(rewards: readonly number[], maxDistinct = 12, bins = 10): HistogramBin[] {
  if (rewards.length === 0) return [];
  const distinct = [...new Set(rewards)].sort((a, b) => a - b);
  if (distinct.length <= maxDistinct) {
    const counts = new Map<number, number>();
    for (const reward of rewards) counts.set(reward, (counts.get(reward) ?? 0) + 1);
    return distinct.map((value) => ({ label: formatNumber(value), from: value, to: value, inclusive: true, count: counts.get(value) ?? 0 }));
  }
  const min = distinct[0] as number;
  const max = distinct.at(-1) as number;
  const width = (max - min) / bins;
  const out: HistogramBin[] = Array.from({ length: bins }, (_, index) => {
    const from = min + index * width;
    const to = index === bins - 1 ? max : min + (index + 1) * width;
    return { label: `${formatNumber(from)}–${formatNumber(to)}`, from, to, inclusive: index === bins - 1, count: 0 };
  });
  for (const reward of rewards) {
    const bin = out[Math.min(bins - 1, Math.floor((reward - min) / width))] as HistogramBin;
    bin.count++;
  }
  return out;
}

export function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4)));
}
