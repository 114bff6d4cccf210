/**
 * Upstream's `AvgMinMax` accumulator of dataset metrics: count, mean and variance by Welford's method
 * (merged with Chan's formula), min, max and a t-digest median. Serialized with upstream's keys and
 * rounding; floats are marked so they print as Python floats (`2.0`).
 */
import { type PythonFloat, pyFloat } from '../python-compat/python-json.ts';
import { roundMetric } from '../python-compat/python-round.ts';
import { TDigest } from './t-digest.ts';

export interface AggregatedAvgMinMax {
  'Total # non-null values': number;
  Average: PythonFloat;
  Min: PythonFloat;
  Max: PythonFloat;
  Median: PythonFloat;
  'Standard deviation': PythonFloat;
}

export class AvgMinMax {
  total = 0;
  mean = 0;
  /** Sum of squared differences from the mean. */
  m2 = 0;
  min = Infinity;
  max = -Infinity;
  digest = new TDigest();

  observe(value: number): void {
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    this.total++;
    const delta = value - this.mean;
    this.mean += delta / this.total;
    this.m2 += delta * (value - this.mean);
    this.digest.update(value);
  }

  add(other: AvgMinMax): void {
    if (other.total === 0) return;
    if (this.total === 0) {
      this.total = other.total;
      this.mean = other.mean;
      this.m2 = other.m2;
      this.min = other.min;
      this.max = other.max;
      this.digest = new TDigest().merge(other.digest);
      return;
    }
    const n1 = this.total;
    const n2 = other.total;
    const n = n1 + n2;
    const delta = other.mean - this.mean;
    this.mean += delta * (n2 / n);
    this.m2 += other.m2 + delta * delta * ((n1 * n2) / n);
    this.total = n;
    if (other.min < this.min) this.min = other.min;
    if (other.max > this.max) this.max = other.max;
    this.digest = this.digest.merge(other.digest);
  }

  aggregate(): AggregatedAvgMinMax {
    const n = this.total;
    const value = (x: number) => pyFloat(roundMetric(x));
    return {
      'Total # non-null values': n,
      Average: value(n > 0 ? this.mean : 0),
      Min: value(n > 0 ? this.min : 0),
      Max: value(n > 0 ? this.max : 0),
      Median: value(n > 0 ? this.digest.percentile(50) : 0),
      'Standard deviation': value(n > 1 ? Math.sqrt(this.m2 / (n - 1)) : 0),
    };
  }
}
