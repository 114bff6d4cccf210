/**
 * Which agents a row runs on, and how many times, as upstream 0.7.0 routes it.
 *
 * The agent: `agent_map[<row's agent_ref.name>]` first, then `agent_map._default` (what `+agent_name` is short
 * for), then the row's own `agent_ref.name`. A map entry re-routes the row even when it names an agent: a run
 * that quietly sends rows elsewhere than asked is the worst kind of difference, so every override is warned
 * about, once per (data's agent, chosen agent) pair, in upstream's words.
 *
 * Then `fan_out[<row's agent_ref.name>]` runs the row once per listed agent, and `num_repeats` (a number, or a
 * map keyed by the dispatched agent or the row's own agent, `_default` for the rest) says how many rollouts
 * each (row, agent) gets.
 */
import type { ServerClient } from '../client/server-client.ts';
import { isDict } from '../config/tree.ts';
import { NgymError } from '../errors.ts';
import { pythonSequenceRatio } from '../python-compat/python-difflib.ts';
import { pythonStringRepr } from '../python-compat/python-json.ts';

/** The key of `agent_map` and of a `num_repeats` map that applies to every row with no entry of its own. */
export const DEFAULT_AGENT_KEY = '_default';

export interface RoutingRules {
  agentMap: Readonly<Record<string, string>> | undefined;
  fanOut: Readonly<Record<string, readonly string[]>> | undefined;
  numRepeats: number | Readonly<Record<string, number>>;
}

interface RouteTarget {
  agent: string;
  /** Rollouts of the row on this agent. */
  rollouts: number;
}

export type RoutedRow =
  | { ok: true; row: Record<string, unknown>; targets: RouteTarget[] }
  | { ok: false; reason: string };

export class AgentRouter {
  private readonly warned = new Set<string>();
  /** Every routing key a row had (dispatched agents and the rows' own agents): a repeats entry outside them is a typo. */
  readonly keysSeen = new Set<string>();
  /** The routing keys of rows no `num_repeats` entry matched (`agent / own agent` when they differ). */
  readonly missingRepeats = new Set<string>();

  constructor(
    private readonly rules: RoutingRules,
    private readonly warn: (message: string) => void,
  ) {}

  route(row: Record<string, unknown>): RoutedRow {
    const ref = row.agent_ref;
    const own = isDict(ref) && typeof ref.name === 'string' && ref.name !== '' ? ref.name : undefined;
    const { agentMap, fanOut } = this.rules;
    const mapped = agentMap === undefined ? undefined : ((own !== undefined ? agentMap[own] : undefined) ?? agentMap[DEFAULT_AGENT_KEY]);
    let routed = row;
    if (mapped !== undefined) {
      if (own !== undefined && own !== mapped) this.warnOverride(own, mapped);
      // As upstream, the row's agent_ref becomes exactly {name: <agent>}: an agent that echoes it into its
      // result then names the agent that ran, not the one the data named.
      if (!(isDict(ref) && own === mapped && Object.keys(ref).length === 1)) routed = { ...row, agent_ref: { name: mapped } };
    }
    const agent = mapped ?? own;
    const agents = own !== undefined && fanOut?.[own] !== undefined ? fanOut[own] : agent === undefined ? [] : [agent];
    if (agents.length === 0) return { ok: false, reason: 'the row has no agent_ref.name and no +agent_name was given' };
    const targets: RouteTarget[] = [];
    for (const target of agents) {
      const keys = own === undefined || own === target ? [target] : [target, own];
      for (const key of keys) this.keysSeen.add(key);
      const rollouts = this.repeatsFor(keys);
      if (rollouts === undefined) {
        const missing = keys.join(' / ');
        this.missingRepeats.add(missing);
        return { ok: false, reason: `num_repeats has no entry for routing key ${missing} and no '_default' fallback` };
      }
      targets.push({ agent: target, rollouts });
    }
    return { ok: true, row: routed, targets };
  }

  /** The `num_repeats` map's entries that no row's routing key matched (upstream warns of them as possible typos). */
  unusedRepeatKeys(): string[] {
    const repeats = this.rules.numRepeats;
    if (typeof repeats === 'number') return [];
    return Object.keys(repeats)
      .filter((key) => key !== DEFAULT_AGENT_KEY && !this.keysSeen.has(key))
      .sort();
  }

  private repeatsFor(keys: string[]): number | undefined {
    const repeats = this.rules.numRepeats;
    if (typeof repeats === 'number') return repeats;
    for (const key of keys) if (repeats[key] !== undefined && key !== DEFAULT_AGENT_KEY) return repeats[key];
    return repeats[DEFAULT_AGENT_KEY];
  }

  private warnOverride(own: string, mapped: string): void {
    const pair = `(${pythonStringRepr(own)}, ${pythonStringRepr(mapped)})`;
    if (this.warned.has(pair)) return;
    this.warned.add(pair);
    this.warn(
      `agent_map overrode agent_ref values already present in the data: [${pair}]. Prior to this release, +agent_name only filled rows missing an agent_ref; it now re-routes every row.`,
    );
  }
}

/**
 * The agents `agent_map` and `fan_out` send rows to must run in this gym: checked before anything starts, in
 * upstream's words, rather than row by row once rollouts are under way.
 */
export function checkRoutingTargets(rules: Pick<RoutingRules, 'agentMap' | 'fanOut'>, client: ServerClient): void {
  const named = new Map<string, string>();
  for (const [key, agent] of Object.entries(rules.agentMap ?? {})) named.set(agent, key === DEFAULT_AGENT_KEY ? 'agent_name / agent_map._default' : `agent_map.${key}`);
  for (const [key, agents] of Object.entries(rules.fanOut ?? {})) for (const agent of agents) if (!named.has(agent)) named.set(agent, `fan_out.${key}`);
  const servers = client.config.servers;
  const available = servers.filter((server) => server.serverType === 'responses_api_agents').map((server) => server.name);
  const unknown = [...named.keys()].filter((agent) => !available.includes(agent)).sort();
  if (unknown.length === 0) return;
  const hints = unknown.map((agent) => {
    const where = ` [${named.get(agent)}]`;
    if (servers.some((server) => server.name === agent)) return `${pythonStringRepr(agent)} (exists but is not an agent instance)${where}`;
    const close = closeMatch(agent, available);
    return `${pythonStringRepr(agent)}${close === undefined ? '' : ` (did you mean ${pythonStringRepr(close)}?)`}${where}`;
  });
  throw new NgymError(
    'NGYM_USAGE',
    `Rows reference agents not present in the running config: ${hints.join(', ')}. Include the agent's config in the run, or re-route with +agent_map/+agent_name.`,
  );
}

/** Python's `difflib.get_close_matches(name, candidates, n=1)`: the best ratio of at least 0.6. */
function closeMatch(name: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestRatio = 0.6;
  for (const candidate of candidates) {
    const ratio = pythonSequenceRatio(candidate, name);
    if (ratio > bestRatio || (ratio === bestRatio && (best === undefined || candidate > best))) {
      best = candidate;
      bestRatio = ratio;
    }
  }
  return best;
}
