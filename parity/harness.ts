/** Sends every case to both servers of an environment and tallies where they agree. */
import { appendFileSync } from 'node:fs';
import { CookieJar } from '../src/client/cookies.ts';
import type { ServerClient } from '../src/client/server-client.ts';
import type { ParityCase } from './cases.ts';
import { compare, type SideResult } from './compare.ts';
import { instanceOf, type ParityEnvironment } from './environment.ts';
import { upstreamInstance } from './gym.ts';

export interface EnvironmentResult {
  environment: string;
  total: number;
  /** Reward and every compared field equal. */
  agree: number;
  rewardAgree: number;
  /** Cases upstream scored above 0: a run where nearly every case scores 0 proves little. */
  upstreamPositive: number;
  /** Disagreements per case kind and differing field, e.g. `mutation:yaml reward,error_type`. */
  causes: Map<string, number>;
}

const IN_FLIGHT = 8;
const DISAGREEMENT_ATTEMPTS = 3;

const DEFAULT_TIMEOUT_MS = 60_000;

async function callSide(client: ServerClient, server: string, item: ParityCase, timeoutMs: number): Promise<SideResult> {
  const cookies = new CookieJar();
  if (item.seed !== undefined) {
    const seeded = await client.post(server, '/seed_session', item.seed, { cookies, timeoutMs });
    if (!seeded.ok) return { status: seeded.status, body: seeded.text.slice(0, 2000) };
    cookies.merge(seeded.cookies);
  }
  // Tool calls between seed and verify, as an agent makes them: a refused call is the tool's answer to the model,
  // not the end of the rollout, so its status is kept beside verify's (the state verify reads may differ by it).
  const callStatuses: number[] = [];
  for (const call of item.calls ?? []) {
    const called = await client.post(server, call.path, call.body, { cookies, timeoutMs });
    callStatuses.push(called.status);
    cookies.merge(called.cookies);
  }
  const verified = await client.post(server, '/verify', item.verify, { cookies, timeoutMs });
  if (!verified.ok) return { status: verified.status, body: verified.text.slice(0, 2000) };
  const body = verified.json() as Record<string, unknown>;
  return { status: verified.status, body: item.calls === undefined ? body : { ...body, call_statuses: callStatuses } };
}

/** The answer with what the environment leaves out of a field (timings inside it) removed before comparing. */
function comparable(environment: ParityEnvironment, side: SideResult): SideResult {
  if (environment.normalize === undefined || side.status < 200 || side.status >= 300) return side;
  return { status: side.status, body: environment.normalize(side.body as Record<string, unknown>) };
}

/** Only what was compared, so the disagreement file shows the difference rather than two echoes of the request. */
function shown(result: SideResult, fields: readonly string[]): unknown {
  if (result.status < 200 || result.status >= 300) return result;
  const body = result.body as Record<string, unknown>;
  return { status: result.status, ...Object.fromEntries(['reward', ...fields].map((field) => [field, body[field] ?? null])) };
}

export async function runEnvironment(
  client: ServerClient,
  environment: ParityEnvironment,
  cases: readonly ParityCase[],
  disagreementsPath: string,
  progress: (done: number, result: EnvironmentResult) => void,
): Promise<EnvironmentResult> {
  const instance = instanceOf(environment);
  const timeoutMs = environment.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const result: EnvironmentResult = { environment: instance, total: cases.length, agree: 0, rewardAgree: 0, upstreamPositive: 0, causes: new Map() };
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < cases.length) {
      const index = next++;
      const item = cases[index] as ParityCase;
      let ngym: SideResult;
      let upstream: SideResult;
      let comparison: ReturnType<typeof compare>;
      let attempt = 0;
      do {
        [ngym, upstream] = (await Promise.all([callSide(client, instance, item, timeoutMs), callSide(client, upstreamInstance(instance), item, timeoutMs)])).map((side) => comparable(environment, side)) as [SideResult, SideResult];
        comparison = compare(ngym, upstream, environment.fields);
        // A disagreement is asked again before it counts: on a loaded machine a side's own time limit (upstream's
        // math-verify gives up after 5 s with reward 0) makes one answer no verdict; a real difference repeats.
      } while (comparison.differing.length > 0 && ++attempt < DISAGREEMENT_ATTEMPTS);
      if (comparison.rewardAgrees) result.rewardAgree += 1;
      if (upstream.status === 200 && Number((upstream.body as { reward?: unknown }).reward) > 0) result.upstreamPositive += 1;
      if (comparison.differing.length === 0) result.agree += 1;
      else {
        const known = environment.knownCause?.(ngym, upstream);
        const cause = known === undefined ? `${item.kind}: ${comparison.differing.join(',')}` : `known: ${known}`;
        result.causes.set(cause, (result.causes.get(cause) ?? 0) + 1);
        const record = { environment: instance, index, kind: item.kind, detail: item.detail, differing: comparison.differing, input: { seed: item.seed, calls: item.calls, verify: item.verify }, ngym: shown(ngym, environment.fields), upstream: shown(upstream, environment.fields) };
        appendFileSync(disagreementsPath, `${JSON.stringify(record)}\n`);
      }
      done += 1;
      progress(done, result);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return result;
}
