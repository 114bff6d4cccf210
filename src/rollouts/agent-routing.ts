/**
 * Which agent a row runs on, as upstream 0.7.0 routes it: `agent_map[<row's agent_ref.name>]` first, then
 * `agent_map._default` (what `+agent_name` is short for), then the row's own `agent_ref.name`. A map entry
 * re-routes the row even when it names an agent: upstream's `+agent_name` stopped being a mere fallback, and
 * a run that quietly sends rows elsewhere than asked is the worst kind of difference, so every override is
 * warned about, once per (data's agent, chosen agent) pair, in upstream's words.
 */
import { isDict } from '../config/tree.ts';
import { pythonStringRepr } from '../python-compat/python-json.ts';

/** The key of `agent_map` that applies to every row with no entry of its own. */
export const DEFAULT_AGENT_KEY = '_default';

export interface RoutedRow {
  /** The agent the row runs on; undefined when neither the map nor the row names one. */
  agent: string | undefined;
  /** The row, with `agent_ref` replaced by `{name: agent}` when the map re-routed it. */
  row: Record<string, unknown>;
  /** The row's own routing key (its `agent_ref.name`), before any re-route. */
  basis: string | undefined;
}

export class AgentRouter {
  private readonly warned = new Set<string>();

  constructor(
    private readonly agentMap: Readonly<Record<string, string>> | undefined,
    private readonly warn: (message: string) => void,
  ) {}

  route(row: Record<string, unknown>): RoutedRow {
    const ref = row.agent_ref;
    const own = isDict(ref) && typeof ref.name === 'string' && ref.name !== '' ? ref.name : undefined;
    const mapped = this.agentMap === undefined ? undefined : ((own !== undefined ? this.agentMap[own] : undefined) ?? this.agentMap[DEFAULT_AGENT_KEY]);
    if (mapped === undefined) return { agent: own, row, basis: own };
    if (own !== undefined && own !== mapped) this.warnOverride(own, mapped);
    // As upstream, the row's agent_ref becomes exactly {name: <agent>}: an agent that echoes it into its
    // result then names the agent that ran, not the one the data named.
    if (isDict(ref) && own === mapped && Object.keys(ref).length === 1) return { agent: mapped, row, basis: own };
    return { agent: mapped, row: { ...row, agent_ref: { name: mapped } }, basis: own };
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
