/**
 * The answer formats of upstream NeMo Gym 0.7.0's structured_outputs (`schema_type`), each read as upstream's
 * Python library reads it, so the value validated is the value Python would validate:
 *
 * | type | upstream | here |
 * |---|---|---|
 * | json | `json.loads` | ngym's `pythonJsonLoads` |
 * | yaml | PyYAML `safe_load` (YAML 1.1) | `yaml` with its YAML 1.1 schema (yes/no/on/off booleans, `0755` octal, `1:30` sexagesimal, merge keys, duplicate keys: the last wins) and PyYAML's number patterns |
 * | xml | `xmltodict.parse` (expat) | `saxes` (a well-formedness-checking XML 1.0 parser) building xmltodict's shape |
 * | toml | `tomllib.loads` | `smol-toml` |
 * | csv | `list(csv.DictReader(io.StringIO(text)))` | a port of the csv module's excel dialect reader (below) |
 *
 * Values Python gives that JSON has no type for (YAML and TOML dates and times, YAML binary) become a
 * `NonJsonValue` symbol: like a `datetime` under jsonschema, it matches no `type` and no `enum`.
 */
import { SaxesParser } from 'saxes';
import { parse as parseToml, TomlDate } from 'smol-toml';
import { parseDocument, type ScalarTag } from 'yaml';
import { pythonJsonLoads, pythonStrip } from 'ngym/python-compat';

export const SCHEMA_TYPES = ['json', 'yaml', 'xml', 'toml', 'csv'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

/** A parse failure: `parse_error`, with the parser's own message. */
export class FormatError extends Error {
  override name = 'FormatError';
}

const nonJson = (what: string) => Symbol(what);

/** Replaces values JSON cannot hold (dates, bigints, binary) by what Python's validator sees in their place. */
function toJsonish(value: unknown): unknown {
  if (value instanceof Date) return nonJson(`datetime ${value instanceof TomlDate ? value.toISOString() : value.toJSON()}`);
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return nonJson('bytes');
  if (Array.isArray(value)) return value.map(toJsonish);
  if (value instanceof Set) return Object.fromEntries([...value].map((item) => [String(item), null]));
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, item]) => [String(key), toJsonish(item)]));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, toJsonish(item)]));
  return value;
}

// PyYAML's implicit resolvers (YAML 1.1). The `yaml` package's 1.1 tags are close, but also read `y`/`n` as
// booleans, `08` as an int and `1e3` (no dot, no exponent sign) as a float, which PyYAML leaves as strings.
const PY_BOOL = /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const PY_INT = /^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$/;
const PY_FLOAT = /^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$/;

const sexagesimal = (text: string) => text.split(':').reduce((total, part) => total * 60 + Number(part), 0);

/** PyYAML's `construct_yaml_int` / `construct_yaml_float`, after `_` is dropped and the sign taken off. */
function pyYamlNumber(text: string, float: boolean): number {
  const clean = text.replaceAll('_', '');
  const sign = clean.startsWith('-') ? -1 : 1;
  const body = clean.replace(/^[-+]/, '');
  if (float) {
    if (/^\.inf$/i.test(body)) return sign * Infinity;
    if (/^\.nan$/i.test(body)) return NaN;
  } else if (body.startsWith('0b')) return sign * Number.parseInt(body.slice(2), 2);
  else if (body.startsWith('0x')) return sign * Number.parseInt(body.slice(2), 16);
  else if (body.startsWith('0') && body.length > 1) return sign * Number.parseInt(body, 8);
  return sign * (body.includes(':') ? sexagesimal(body) : Number(body));
}

const YAML_TAG = 'tag:yaml.org,2002:';
const PY_YAML_TAGS: ScalarTag[] = [
  { tag: `${YAML_TAG}bool`, default: true, test: PY_BOOL, resolve: (text) => /^(?:yes|true|on)$/i.test(text), identify: (value) => typeof value === 'boolean' },
  { tag: `${YAML_TAG}int`, default: true, test: PY_INT, resolve: (text) => pyYamlNumber(text, false), identify: Number.isInteger },
  { tag: `${YAML_TAG}float`, default: true, test: PY_FLOAT, resolve: (text) => pyYamlNumber(text, true), identify: (value) => typeof value === 'number' },
  // `=` resolves to YAML 1.1's value tag, which safe_load cannot construct.
  { tag: `${YAML_TAG}value`, default: true, test: /^=$/, resolve: (_text, onError) => onError('could not determine a constructor for the tag tag:yaml.org,2002:value') },
];
const REPLACED = new Set(PY_YAML_TAGS.map((tag) => tag.tag));

function parseYaml(text: string): unknown {
  const document = parseDocument(text, {
    version: '1.1',
    schema: 'yaml-1.1',
    // Implicit (pattern) tags of these types are PyYAML's; explicit `!!int` and the others stay the library's.
    customTags: (tags) => [...PY_YAML_TAGS, ...tags.filter((tag) => typeof tag === 'string' || !(REPLACED.has(tag.tag) && 'test' in tag && tag.test !== undefined))],
    merge: true,
    uniqueKeys: false,
    prettyErrors: false,
  });
  if (document.errors.length > 0) throw new FormatError(`YAMLError: ${document.errors[0]!.message}`);
  return toJsonish(document.toJS({ maxAliasCount: -1 }));
}

interface XmlFrame {
  item: Record<string, unknown> | null;
  data: string[];
}

/**
 * xmltodict's default shape: `{root: ...}`; an element with attributes or children is a dict (`@name` for an
 * attribute, `#text` for its text), one with only text is that text stripped, an empty one is null; repeated
 * children become a list. Namespace prefixes stay part of the names, comments are dropped.
 */
function parseXml(text: string): unknown {
  const parser = new SaxesParser({ xmlns: false, position: true });
  let item: Record<string, unknown> | null = null;
  let data: string[] = [];
  const stack: XmlFrame[] = [];
  const push = (target: Record<string, unknown> | null, key: string, value: unknown) => {
    const into = target ?? {};
    if (!Object.hasOwn(into, key)) into[key] = value;
    else if (Array.isArray(into[key])) (into[key] as unknown[]).push(value);
    else into[key] = [into[key], value];
    return into;
  };
  let failure: Error | undefined;
  parser.on('error', (error) => {
    failure ??= error;
  });
  parser.on('opentag', (tag) => {
    stack.push({ item, data });
    const attributes = Object.entries(tag.attributes as Record<string, string>);
    item = attributes.length === 0 ? null : Object.fromEntries(attributes.map(([key, value]) => [`@${key}`, value]));
    data = [];
  });
  const characters = (chunk: string) => data.push(chunk);
  parser.on('text', characters);
  parser.on('cdata', characters);
  parser.on('closetag', (tag) => {
    const joined = data.length === 0 ? null : data.join('');
    const element = item;
    ({ item, data } = stack.pop()!);
    const stripped = joined === null ? null : pythonStrip(joined) || null;
    if (element !== null) {
      if (stripped !== null) push(element, '#text', stripped);
      item = push(item, tag.name, element);
    } else item = push(item, tag.name, stripped);
  });
  parser.write(text).close();
  if (failure !== undefined) throw new FormatError(`ExpatError: ${failure.message}`);
  return item;
}

/** `restkey` of csv.DictReader: a row's fields beyond the header go under Python's key `None`. */
export const CSV_REST_KEY = '\u0000None';

/**
 * The csv module's reader with the excel dialect (`,`, `"` doubled inside quotes, not strict), fed line by line
 * as `io.StringIO` splits them (on `\n` only), then csv.DictReader: the first row names the fields, blank rows
 * are skipped, missing fields are null, extra ones a list under `CSV_REST_KEY`.
 */
function readCsvRows(text: string): string[][] {
  const rows: string[][] = [];
  let fields: string[] = [];
  let field = '';
  let state: 'record' | 'start' | 'field' | 'quoted' | 'quote' | 'crnl' = 'record';
  const save = () => {
    fields.push(field);
    field = '';
  };
  const EOL = null;
  const step = (c: string | null) => {
    const newline = c === '\n' || c === '\r';
    if (state === 'record') {
      if (c === EOL) return;
      // Otherwise the character starts the first field (or, a newline, ends an empty record).
      state = newline ? 'crnl' : 'start';
      if (newline) return;
    }
    switch (state) {
      case 'start':
        if (newline || c === EOL) {
          save();
          state = c === EOL ? 'record' : 'crnl';
        } else if (c === '"') state = 'quoted';
        else if (c === ',') save();
        else {
          field += c;
          state = 'field';
        }
        return;
      case 'field':
        if (newline || c === EOL) {
          save();
          state = c === EOL ? 'record' : 'crnl';
        } else if (c === ',') {
          save();
          state = 'start';
        } else field += c;
        return;
      case 'quoted':
        if (c === EOL) return;
        if (c === '"') state = 'quote';
        else field += c;
        return;
      case 'quote':
        if (c === '"') {
          field += c;
          state = 'quoted';
        } else if (c === ',') {
          save();
          state = 'start';
        } else if (newline || c === EOL) {
          save();
          state = c === EOL ? 'record' : 'crnl';
        } else {
          field += c;
          state = 'field';
        }
        return;
      case 'crnl':
        if (newline) return;
        if (c === EOL) {
          state = 'record';
          return;
        }
        throw new FormatError("Error: new-line character seen in unquoted field - do you need to open the file with newline=''?");
    }
  };
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  for (const line of lines) {
    for (const c of line) step(c);
    step(EOL);
    if (state === 'record') {
      rows.push(fields);
      fields = [];
    }
  }
  // Input ended inside a quoted field: not strict, so the field and its record are kept.
  if (state !== 'record' && (field !== '' || state === 'quoted')) {
    save();
    rows.push(fields);
  }
  return rows;
}

function parseCsv(text: string): Record<string, unknown>[] {
  const [header, ...rows] = readCsvRows(text);
  if (header === undefined) return [];
  return rows
    .filter((row) => row.length > 0)
    .map((row) => {
      const record: Record<string, unknown> = {};
      // dict(zip(...)) then restval for the missing: with a repeated name the later column wins.
      header.forEach((name, index) => {
        record[name] = index < row.length ? row[index] : null;
      });
      if (row.length > header.length) record[CSV_REST_KEY] = row.slice(header.length);
      return record;
    });
}

/** Parses an answer as upstream does for its `schema_type`; throws `FormatError` (or the JSON reader's error). */
export function parseContent(schemaType: SchemaType, text: string): unknown {
  switch (schemaType) {
    case 'json':
      return pythonJsonLoads(text);
    case 'yaml':
      return parseYaml(text);
    case 'xml':
      return parseXml(text);
    case 'toml':
      try {
        return toJsonish(parseToml(text, { integersAsBigInt: true }));
      } catch (error) {
        throw new FormatError(`TOMLDecodeError: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      }
    case 'csv':
      return parseCsv(text);
  }
}
