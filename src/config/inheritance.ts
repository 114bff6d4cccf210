/**
 * Upstream's config directives, applied once the files are merged (its `_recursively_swap_keys`), so an
 * upstream benchmark config composes here as there:
 *   `_inherit_from: a.b` (or the value `${inherit_from:a.b}`)  this entry becomes the value at `a.b` with the
 *       entry's own keys merged over it, and `a.b` leaves the config (a benchmark takes a server under its own name);
 *   `_copy: a.b` (or `${copy:a.b}`)  the same, but `a.b` stays;
 *   `_delete_key: k1, k2`  removes those keys from the entry (after the inheritance, for keys it brings).
 * Sources are read from the config as merged, before any directive ran, so several entries may inherit the same
 * source and the order of entries does not matter. When an agent moved to exactly one new name, environment
 * servers that still name it follow it; when it moved to several, a reference still naming it is an error.
 */
import { ConfigError } from '../errors.ts';
import { type ConfigDict, type ConfigSources, type ConfigValue, isDict, pathKey } from './tree.ts';

const INHERIT_FROM = '_inherit_from';
const COPY = '_copy';
const DELETE_KEY = '_delete_key';
const DIRECTIVE_STRING = /^\$\{(inherit_from|copy):([^}]*)\}$/;

interface Directive {
  kind: 'inherit' | 'copy';
  source: string[];
  /** The entry's own keys (without the directive), merged over the source; null for the string form. */
  own: ConfigDict | null;
}

function directiveOf(value: ConfigValue): Directive | undefined {
  if (typeof value === 'string') {
    const match = DIRECTIVE_STRING.exec(value);
    if (match === null) return undefined;
    return { kind: match[1] === 'copy' ? 'copy' : 'inherit', source: (match[2] as string).split('.'), own: null };
  }
  if (!isDict(value)) return undefined;
  for (const [key, kind] of [[INHERIT_FROM, 'inherit'], [COPY, 'copy']] as const) {
    if (!(key in value)) continue;
    const { [key]: source, ...own } = value;
    if (typeof source !== 'string' || source === '') throw new ConfigError('NGYM_CONFIG_INVALID', `\`${key}\` must name a config path such as \`math_with_judge\`, got ${JSON.stringify(source)}.`, { key });
    return { kind, source: source.split('.'), own };
  }
  return undefined;
}

/** OmegaConf's merge of plain values: dicts merge, everything else is replaced. */
function merged(base: ConfigValue, overlay: ConfigDict): ConfigValue {
  if (!isDict(base)) return structuredClone(overlay);
  const out: ConfigDict = structuredClone(base);
  for (const [key, value] of Object.entries(overlay)) {
    const existing = out[key];
    out[key] = isDict(existing) && isDict(value) ? (merged(existing, value) as ConfigDict) : structuredClone(value);
  }
  return out;
}

function lookup(root: ConfigDict, path: readonly string[], at: readonly string[]): ConfigValue {
  let node: ConfigValue = root;
  for (const segment of path) {
    if (!isDict(node) || !Object.hasOwn(node, segment)) {
      throw new ConfigError('NGYM_CONFIG_INVALID', `\`${pathKey(at)}\` inherits from \`${pathKey(path)}\`, which is not in the config.`, { key: pathKey(at) });
    }
    node = node[segment] as ConfigValue;
  }
  return node;
}

interface Pass {
  root: ConfigDict;
  frozen: ConfigDict;
  sources: ConfigSources;
  /** Top-level names that inherited from another top-level entry: source -> destinations. */
  moves: Map<string, string[]>;
}

function visit(pass: Pass, container: ConfigDict, path: string[]): void {
  for (const [key, value] of Object.entries(container)) {
    const at = [...path, key];
    let deferredDeletes: string[] = [];
    if (isDict(value) && DELETE_KEY in value) {
      const keys = String(value[DELETE_KEY]).split(',').map((name) => name.trim()).filter((name) => name !== '');
      delete value[DELETE_KEY];
      deferredDeletes = keys.filter((name) => !(name in value));
      for (const name of keys) delete value[name];
    }
    if (isDict(value)) visit(pass, value, at);
    else if (Array.isArray(value)) value.forEach((item, index) => isDict(item) && visit(pass, item, [...at, String(index)]));

    const directive = directiveOf(value);
    if (directive === undefined) continue;
    const inherited = lookup(pass.frozen, directive.source, at);
    // As upstream, the source's parent must still be in the config (an earlier `_inherit_from` may have taken it).
    const parent = lookup(pass.root, directive.source.slice(0, -1), at);
    if (directive.kind === 'inherit') {
      if (isDict(parent)) delete parent[directive.source.at(-1) as string];
      if (path.length === 0 && directive.source.length === 1) {
        const source = directive.source[0] as string;
        pass.moves.set(source, [...(pass.moves.get(source) ?? []), key]);
      }
    }
    container[key] = directive.own === null ? structuredClone(inherited) : merged(inherited, directive.own);
    pass.sources.inherit(directive.source, at);
    for (const name of deferredDeletes) {
      const entry = container[key];
      if (!isDict(entry) || !(name in entry)) {
        throw new ConfigError('NGYM_CONFIG_INVALID', `\`${pathKey(at)}\` asks \`${DELETE_KEY}\` to remove \`${name}\`, which neither it nor \`${pathKey(directive.source)}\` has.`, { key: pathKey(at) });
      }
      delete entry[name];
    }
  }
}

const isAgent = (value: ConfigValue | undefined) => isDict(value) && isDict(value.responses_api_agents);

/** Environment servers' references to an agent that moved to one new name follow it (upstream's retargeting). */
function followMovedAgents(pass: Pass): void {
  for (const [source, destinations] of pass.moves) {
    if (!isAgent(pass.frozen[source]) || source in pass.root) continue;
    const agents = destinations.filter((name) => isAgent(pass.root[name]));
    for (const [instance, entry] of Object.entries(pass.root)) {
      const servers = isDict(entry) ? entry.environment_servers : undefined;
      if (!isDict(servers)) continue;
      for (const [impl, inner] of Object.entries(servers)) {
        if (!isDict(inner)) continue;
        for (const [field, reference] of Object.entries(inner)) {
          const namesAgent = isDict(reference) && reference.name === source && (reference.type === 'responses_api_agents' || (field === 'agent_server' && reference.type === undefined));
          if (!namesAgent) continue;
          if (agents.length > 1) {
            throw new ConfigError(
              'NGYM_CONFIG_INVALID',
              `Agent '${source}' was inherited into several names (${agents.join(', ')}), but \`${instance}.environment_servers.${impl}.${field}.name\` still names '${source}'. Give each new agent its own environment server, or point this one at the agent it should front.`,
              { key: `${instance}.environment_servers.${impl}.${field}.name` },
            );
          }
          if (agents.length === 1) reference.name = agents[0] as string;
        }
      }
    }
  }
}

/** Applies the directives in place; a no-op for configs without them. */
export function applyInheritance(root: ConfigDict, sources: ConfigSources): void {
  if (!JSON.stringify(root).match(/"(_inherit_from|_copy|_delete_key)"|"\$\{(inherit_from|copy):/)) return;
  const pass: Pass = { root, frozen: structuredClone(root), sources, moves: new Map() };
  visit(pass, root, []);
  followMovedAgents(pass);
}
