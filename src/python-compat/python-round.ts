/**
 * Python's `round(x, digits)` for floats: the nearest decimal to the exact binary value, ties to even.
 * `toFixed` also works on the exact value but breaks exact ties upward (`0.125` -> `0.13`; Python: `0.12`).
 */
export function pythonRound(value: number, digits: number): number {
  if (!Number.isFinite(value)) return value;
  // toFixed(100) is the exact decimal expansion for every value with at most 100 fractional digits; a tie
  // (a 5 followed only by zeros at position `digits`) always has a short expansion.
  const exact = Math.abs(value).toFixed(100);
  const point = exact.indexOf('.');
  const rest = exact.slice(point + 1 + digits);
  const isTie = rest[0] === '5' && /^50*$/.test(rest);
  if (!isTie) return Number(value.toFixed(digits));
  const truncated = exact.slice(0, point + 1 + digits);
  const lastDigit = Number(truncated.at(-1) === '.' ? truncated.at(-2) : truncated.at(-1));
  const magnitude = lastDigit % 2 === 0 ? Number(truncated) : Number(Math.abs(value).toFixed(digits));
  return value < 0 || Object.is(value, -0) ? -magnitude : magnitude;
}

/** The rounding of upstream's dataset metrics: 2 decimals when |x| >= 1, else 3. */
export function roundMetric(value: number): number {
  return value >= 1 || value <= -1 ? pythonRound(value, 2) : pythonRound(value, 3);
}
