/**
 * Descriptive statistics of small in-memory samples, computed the way pandas and numpy do (so aggregate metrics
 * match upstream's): two-pass sample standard deviation, linear-interpolation quantiles, the Student t
 * quantile behind scipy's `t.interval`, and the 95% intervals built on it (of a mean, of paired differences, and
 * Welch's of two independent means).
 */

export function mean(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total / values.length;
}

/** Standard deviation with `ddof` degrees of freedom removed (pandas: 1, `statistics.pstdev`: 0); NaN when undefined. */
export function standardDeviation(values: readonly number[], ddof: 0 | 1): number {
  if (values.length - ddof <= 0) return Number.NaN;
  const center = mean(values);
  let squares = 0;
  for (const value of values) squares += (value - center) ** 2;
  return Math.sqrt(squares / (values.length - ddof));
}

/** numpy's default (linear) quantile, `q` in [0, 1]. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.min(below + 1, sorted.length - 1);
  const low = sorted[below] as number;
  return low + (position - below) * ((sorted[above] as number) - low);
}

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9: about 15 significant digits). */
function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const coefficients = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let sum = coefficients[0] as number;
  for (let i = 1; i < coefficients.length; i++) sum += (coefficients[i] as number) / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The continued fraction of the regularized incomplete beta function (modified Lentz). */
function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let result = d;
  for (let m = 1; m <= 10_000; m++) {
    const even = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1 + even * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + even / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    result *= d * c;
    const odd = (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + odd * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + odd / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    result *= step;
    if (Math.abs(step - 1) < 1e-16) break;
  }
  return result;
}

/** I_x(a, b), the regularized incomplete beta function. */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(x, a, b)) / a : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** P(T <= t) for Student's t with `df` degrees of freedom. */
function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The `p` quantile of Student's t with `df` degrees of freedom (scipy's `t.ppf`), by bisection. */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) throw new RangeError(`studentTQuantile needs 0 < p < 1 and df > 0, got p=${p}, df=${df}`);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let low = 0;
  let high = 1;
  while (studentTCdf(high, df) < p) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-15 * high; i++) {
    const middle = (low + high) / 2;
    if (studentTCdf(middle, df) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/** center ± t(0.975, df) · standardError (scipy's `t.interval(0.95, df, center, standardError)`); a zero standard error gives [center, center]. */
export function tInterval95(center: number, standardError: number, degreesOfFreedom: number): [number, number] {
  if (standardError === 0) return [center, center];
  const t = studentTQuantile(0.975, degreesOfFreedom);
  return [center - t * standardError, center + t * standardError];
}

/** The mean of paired differences and its 95% t-interval (n - 1 degrees of freedom); undefined below two pairs. */
export function pairedDifferenceInterval(differences: readonly number[]): { mean: number; low: number; high: number } | undefined {
  if (differences.length < 2) return undefined;
  const center = mean(differences);
  const [low, high] = tInterval95(center, standardDeviation(differences, 1) / Math.sqrt(differences.length), differences.length - 1);
  return { mean: center, low, high };
}

/**
 * Welch's 95% interval for mean(a) - mean(b) of two independent samples (scipy's
 * `ttest_ind(a, b, equal_var=False).confidence_interval(0.95)`); undefined unless each has two values.
 */
export function welchDifferenceInterval(a: readonly number[], b: readonly number[]): [number, number] | undefined {
  if (a.length < 2 || b.length < 2) return undefined;
  const varianceA = standardDeviation(a, 1) ** 2 / a.length;
  const varianceB = standardDeviation(b, 1) ** 2 / b.length;
  const standardError = Math.sqrt(varianceA + varianceB);
  const degreesOfFreedom = (varianceA + varianceB) ** 2 / (varianceA ** 2 / (a.length - 1) + varianceB ** 2 / (b.length - 1));
  return tInterval95(mean(a) - mean(b), standardError, degreesOfFreedom);
}
