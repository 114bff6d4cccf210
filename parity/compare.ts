/** How two `/verify` answers are compared: the reward, then each field the environment defines. */

export interface SideResult {
  status: number;
  body: unknown;
}

export interface Comparison {
  rewardAgrees: boolean;
  /** Names of the compared fields whose values differ (`reward` included), or `status` when one side refused. */
  differing: string[];
}

export function equalValues(left: unknown, right: unknown): boolean {
  if (typeof left === 'number' && typeof right === 'number') return Math.abs(left - right) <= 1e-9 * Math.max(1, Math.abs(left));
  // A bool field that one side sends as 0/1 (Python's int(bool) vs JSON true) is the same value.
  if (typeof left === 'boolean' && typeof right === 'number') return Number(left) === right;
  if (typeof left === 'number' && typeof right === 'boolean') return left === Number(right);
  if (Array.isArray(left) && Array.isArray(right)) return left.length === right.length && left.every((item, index) => equalValues(item, right[index]));
  if (left !== null && right !== null && typeof left === 'object' && typeof right === 'object') {
    const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
    return [...keys].every((key) => equalValues((left as Record<string, unknown>)[key], (right as Record<string, unknown>)[key]));
  }
  // An absent field and null mean the same (pydantic's Optional default vs an omitted key).
  return (left ?? null) === (right ?? null);
}

/**
 * Both refusing the body (any 4xx/5xx) agree: the case was not a valid request for either. One refusing and the
 * other scoring is a disagreement on everything.
 */
export function compare(ngym: SideResult, upstream: SideResult, fields: readonly string[]): Comparison {
  const ngymOk = ngym.status >= 200 && ngym.status < 300;
  const upstreamOk = upstream.status >= 200 && upstream.status < 300;
  if (!ngymOk || !upstreamOk) {
    const agree = ngymOk === upstreamOk;
    return { rewardAgrees: agree, differing: agree ? [] : ['status'] };
  }
  const left = ngym.body as Record<string, unknown>;
  const right = upstream.body as Record<string, unknown>;
  const differing = ['reward', ...fields].filter((field) => !equalValues(left[field], right[field]));
  return { rewardAgrees: !differing.includes('reward'), differing };
}
