/**
 * The reward range upstream declares for an environment, for the check of environments that draw at random (every
 * row runs and scores inside it). Upstream 0.7.0 declares it in an environment's `manifest.yaml` (`reward.range`,
 * inclusive, beside `determinism`); the resources servers without a manifest state it in their config's
 * `description` ("Reward +1 win, 0 draw, -1 loss/bust."), which is read as the least and greatest number it names.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { instancesOf, readConfig } from './upstream-servers.ts';

export interface RewardRange {
  lower: number;
  upper: number;
  /** Where upstream declares it, for the reader. */
  source: string;
}

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** `reward.range` of a manifest.yaml under environments/ or benchmarks/ whose `resources_server` is `name`. */
function manifestRange(sitePackages: string, name: string): RewardRange | undefined {
  for (const root of ['environments', 'benchmarks']) {
    const folder = join(sitePackages, root);
    if (!existsSync(folder)) continue;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name, 'manifest.yaml');
      if (!entry.isDirectory() || !existsSync(path)) continue;
      const manifest = readConfig(path) as { resources_server?: unknown; reward?: { range?: unknown } } | undefined;
      const range = manifest?.reward?.range;
      if (manifest?.resources_server !== name || !Array.isArray(range) || range.length !== 2 || !range.every(isNumber)) continue;
      return { lower: range[0] as number, upper: range[1] as number, source: `${root}/${entry.name}/manifest.yaml reward.range` };
    }
  }
  return undefined;
}

/** The numbers a config description's sentence about the reward names ("Reward +1 win, 0 draw, -1 loss"). */
export function descriptionRange(description: string): { lower: number; upper: number } | undefined {
  const sentence = /\breward\b[^.]*?(?:[+-]?\d+(?:\.\d+)?)[^.]*/i.exec(description)?.[0];
  if (sentence === undefined) return undefined;
  const numbers = [...sentence.matchAll(/(?<![\w.])[+-]?\d+(?:\.\d+)?(?![\w.])/g)].map((match) => Number(match[0]));
  return numbers.length < 2 ? undefined : { lower: Math.min(...numbers), upper: Math.max(...numbers) };
}

export function declaredRewardRange(sitePackages: string, name: string, config: string | undefined, resourcesInstance: string | undefined): RewardRange | undefined {
  const fromManifest = manifestRange(sitePackages, name);
  if (fromManifest !== undefined || config === undefined) return fromManifest;
  const instance = instancesOf(readConfig(config) ?? {}).find((candidate) => candidate.kind === 'resources_servers' && candidate.name === resourcesInstance);
  const description = instance?.body.description;
  if (typeof description !== 'string') return undefined;
  const range = descriptionRange(description);
  return range === undefined ? undefined : { ...range, source: `its config's description: ${JSON.stringify(description)}` };
}

/** Whether every row ran (none failed, one result per row) and each reward lies in the range; else what broke it. */
export function checkRewardRange(rewards: readonly unknown[], rows: number, failed: number, range: RewardRange): { ok: true } | { ok: false; problem: string } {
  if (failed > 0 || rewards.length !== rows) return { ok: false, problem: `${failed} of ${rows} rows failed${rewards.length + failed !== rows ? `, ${rows - rewards.length - failed} gave no result` : ''}` };
  const outside = rewards.filter((reward) => !isNumber(reward) || reward < range.lower || reward > range.upper);
  if (outside.length > 0) return { ok: false, problem: `rewards outside ${range.lower}..${range.upper}: ${outside.map((reward) => JSON.stringify(reward)).join(', ')}` };
  return { ok: true };
}
