/**
 * YAML reading and writing for configs. Parse errors name the file, line and column. Output uses YAML 1.1
 * quoting so Python (PyYAML/OmegaConf) children read strings such as `yes` or `010` back as strings.
 */
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { ConfigError } from '../errors.ts';
import { type ConfigDict, isDict, pathKey } from './tree.ts';

/** The line (1-based) of each key of a parsed config file, by dotted path; filled by parseYamlConfig. */
const keyLines = new WeakMap<ConfigDict, Map<string, number>>();

export function keyLinesOf(dict: ConfigDict): Map<string, number> | undefined {
  return keyLines.get(dict);
}

function collectKeyLines(node: unknown, path: string[], counter: YAML.LineCounter, into: Map<string, number>): void {
  if (!YAML.isMap(node)) return;
  for (const pair of node.items) {
    const key = YAML.isScalar(pair.key) ? String(pair.key.value) : undefined;
    if (key === undefined) continue;
    const childPath = [...path, key];
    const offset = (pair.key as YAML.Scalar).range?.[0];
    if (offset !== undefined) into.set(pathKey(childPath), counter.linePos(offset).line);
    collectKeyLines(pair.value, childPath, counter, into);
  }
}

export function parseYamlConfig(text: string, label: string): ConfigDict {
  let parsed: unknown;
  const counter = new YAML.LineCounter();
  let document: YAML.Document.Parsed | undefined;
  try {
    document = YAML.parseDocument(text, { uniqueKeys: true, lineCounter: counter });
    if (document.errors.length > 0) throw document.errors[0];
    parsed = document.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    if (error instanceof YAML.YAMLError) {
      const position = error.linePos?.[0];
      const at = position === undefined ? '' : `:${position.line}:${position.col}`;
      throw new ConfigError('NGYM_CONFIG_FILE', `Invalid YAML in ${label}${at}: ${error.message.split('\n')[0]}`, {
        source: label,
        cause: error,
      });
    }
    throw error;
  }
  if (parsed === null || parsed === undefined) return {};
  if (!isDict(parsed)) {
    throw new ConfigError('NGYM_CONFIG_FILE', `${label} must hold a mapping of keys at the top level.`, { source: label });
  }
  const lines = new Map<string, number>();
  collectKeyLines(document.contents, [], counter, lines);
  keyLines.set(parsed as ConfigDict, lines);
  return parsed as ConfigDict;
}

export function readYamlConfig(filePath: string, label = filePath): ConfigDict {
  let text: string;
  try {
    text = readFileSync(filePath, 'utf8');
  } catch (error) {
    throw new ConfigError('NGYM_CONFIG_FILE', `Cannot read config file ${label}: ${(error as Error).message}`, {
      source: label,
      cause: error,
    });
  }
  return parseYamlConfig(text, label);
}

export function dumpYaml(value: unknown): string {
  return YAML.stringify(value, { version: '1.1', lineWidth: 0, aliasDuplicateObjects: false });
}
