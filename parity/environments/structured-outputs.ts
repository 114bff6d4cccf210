/**
 * structured_outputs: the example rollouts, then generated schemas (nested objects, arrays, enums, bounded
 * integers, numbers, booleans, nullable types, date-like strings; sometimes all required or closed, sometimes
 * invalid) with valid and invalid instances written in each schema type upstream 0.7.0 reads:
 * json; yaml (strings YAML 1.1 reads otherwise: yes/no/on/off, 0755, 1:30, dates, 1e3); xml (wrapped in a root
 * element as 0.7.0's data does, or not; attributes, repeated or single items, empty elements, 1/0 and True
 * booleans, padded text, entities, CDATA, a declaration); toml (tables, arrays of tables, bare dates); csv (quoted
 * fields, nullable empty fields, extra and missing columns, blank lines, CRLF); each plain, fenced, with prose,
 * truncated, empty or padded; and tool calls in 0.7.0's `response_mode: tool_call` (direct, under
 * `tool_payload_key`, wrong tool, two calls, broken arguments, missing key, text only).
 */
import { stringify as yamlText } from 'yaml';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, textResponse, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

type Schema = Record<string, unknown>;
type Leaf = [schema: Schema, good: unknown, bad: unknown];

// Strings a YAML 1.1 reader (PyYAML) does not read as strings when left unquoted, and ordinary ones.
const TRICKY_STRINGS = ['yes', 'No', 'on', 'OFF', 'y', '0755', '08', '1:30', '2024-05-10', '1e3', '1.5e+3', 'null', '~', 'True', '12:30:00', '0x1F', '1_000', '.inf', '='];
const STRINGS = ['Harbor Street', 'a', 'Zürich', 'R&D <team>', 'line "quoted"', 'a, b', '  padded  ', ...TRICKY_STRINGS];

function leaf(random: Random, depth: number, flat: boolean): Leaf {
  const kinds = ['string', 'string', 'integer', 'number', 'boolean', 'enum', 'nullable', 'date'];
  const kind = random.pick(flat || depth > 1 ? kinds : [...kinds, 'array', 'array', 'object', 'object']);
  switch (kind) {
    case 'string':
      return [{ type: 'string' }, random.pick([...STRINGS, '']), random.pick([random.int(1, 9), true, null])];
    case 'integer':
      return [{ type: 'integer', ...(random.chance(0.5) ? { minimum: 0, maximum: 500 } : {}) }, random.pick([random.int(0, 500), 0, 7]), random.pick([-3, 2.5, 'seven', 900, true])];
    case 'number':
      return [{ type: 'number' }, random.pick([3.5, 89, 0.001, -2, 1e21]), random.pick(['cheap', false])];
    case 'boolean':
      return [{ type: 'boolean' }, random.chance(0.5), random.pick(['maybe', 2])];
    case 'enum':
      return [{ type: 'string', enum: ['low', 'medium', 'high', 'on'] }, random.pick(['low', 'high', 'on']), random.pick(['urgent', 'Low'])];
    case 'nullable':
      return [{ type: random.pick([['integer', 'null'], ['string', 'null'], ['null', 'number']]) }, random.pick([null, 4]), random.pick([true, [1]])];
    case 'date':
      return [{ type: 'string', format: 'date' }, random.pick(['2024-05-10', '1999-12-31']), random.pick([20240510, false])];
    case 'array': {
      const [items, good, bad] = leaf(random, depth + 1, flat);
      const length = random.int(0, 3);
      const goods = Array.from({ length }, () => good);
      return [{ type: 'array', items, ...(random.chance(0.2) ? { minItems: 1 } : {}) }, length === 0 && random.chance(0.5) ? [good] : goods, [...goods, bad]];
    }
    default:
      return objectSchema(random, depth + 1, random.int(1, 3), flat);
  }
}

function objectSchema(random: Random, depth: number, size: number, flat: boolean): [Schema, Record<string, unknown>, Record<string, unknown>] {
  const properties: Record<string, Schema> = {};
  const good: Record<string, unknown> = {};
  const bad: Record<string, unknown> = {};
  const names = random.shuffled(['name', 'count', 'price', 'active', 'level', 'tags', 'route', 'date', 'owner', 'items', 'notes', 'score']).slice(0, size);
  const broken = random.int(0, size - 1);
  names.forEach((name, position) => {
    const [schema, value, wrong] = leaf(random, depth, flat);
    properties[name] = schema;
    good[name] = value;
    bad[name] = position === broken ? wrong : value;
  });
  const schema: Schema = { type: 'object', properties };
  if (random.chance(0.3)) schema.required = names;
  if (random.chance(0.2)) schema.additionalProperties = false;
  if (!flat && random.chance(0.15)) delete bad[names[broken]!];
  return [schema, good, bad];
}

// ---- writers: each renders a value the way a model might, with the format's own variations ----

function csvField(random: Random, value: unknown): string {
  let text = value === null ? '' : typeof value === 'boolean' ? random.pick([String(value), value ? 'True' : 'False', value ? '1' : '0', value ? 'yes' : 'no']) : typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/[",\n]/.test(text) || random.chance(0.1)) text = `"${text.replaceAll('"', '""')}"`;
  return text;
}

function csvText(random: Random, rows: Record<string, unknown>[]): string {
  const keys = Object.keys(rows[0] ?? {});
  const header = random.chance(0.05) ? [...keys, 'extra'] : random.chance(0.05) ? keys.slice(1) : keys;
  const lines = [header.join(','), ...rows.map((row) => keys.map((key) => csvField(random, row[key])).join(','))];
  if (random.chance(0.08)) lines[lines.length - 1] += ',surplus';
  if (random.chance(0.08)) lines.splice(1, 0, '');
  if (random.chance(0.05)) lines.unshift('');
  return lines.join(random.pick(['\n', '\n', '\r\n'])) + random.pick(['', '\n']);
}

function xmlEscape(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function xmlScalar(random: Random, value: unknown): string {
  if (typeof value === 'boolean') return random.pick([String(value), value ? '1' : '0', value ? 'True' : 'False']);
  const text = String(value);
  if (/[<&]/.test(text) && random.chance(0.3)) return `<![CDATA[${text}]]>`;
  return random.chance(0.1) ? `  ${xmlEscape(text)}\n` : xmlEscape(text);
}

function xmlText(random: Random, value: unknown, tag: string): string {
  if (value === null || value === '') return random.pick([`<${tag}/>`, `<${tag}></${tag}>`]);
  if (Array.isArray(value)) {
    const item = random.pick(['item', 'item', tag.replace(/s$/, '') || 'item']);
    return `<${tag}>${value.map((entry) => xmlText(random, entry, item)).join('')}</${tag}>`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as object);
    // Now and then a scalar field as an attribute (xmltodict names it @field).
    const attribute = entries.find(([, item]) => typeof item !== 'object') && random.chance(0.08) ? entries.find(([, item]) => typeof item !== 'object') : undefined;
    const attributes = attribute === undefined ? '' : ` ${attribute[0]}="${xmlEscape(String(attribute[1]))}"`;
    const children = entries.filter((entry) => entry !== attribute).map(([key, item]) => xmlText(random, item, key));
    return `<${tag}${attributes}>${children.join(random.pick(['', '\n  ']))}</${tag}>`;
  }
  return `<${tag}>${xmlScalar(random, value)}</${tag}>`;
}

function tomlValue(value: unknown): string {
  if (value === null) return '""';
  if (typeof value === 'string') return /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (typeof value === 'object') return `{ ${Object.entries(value).map(([key, item]) => `${key} = ${tomlValue(item)}`).join(', ')} }`;
  return Number.isFinite(value) || typeof value !== 'number' ? String(value) : 'nan';
}

/** TOML with sub-objects as `[tables]` and lists of objects as `[[arrays of tables]]` (nulls left out: TOML has none). */
function tomlText(value: Record<string, unknown>, prefix = ''): string {
  const entries = Object.entries(value).filter(([, item]) => item !== null);
  const isTables = (item: unknown) => Array.isArray(item) && item.length > 0 && item.every((entry) => typeof entry === 'object' && entry !== null && !Array.isArray(entry));
  const nested = (item: unknown) => (typeof item === 'object' && item !== null && !Array.isArray(item)) || isTables(item);
  const lines = entries.filter(([, item]) => !nested(item)).map(([key, item]) => `${key} = ${tomlValue(item)}`);
  for (const [key, item] of entries.filter(([, entry]) => nested(entry))) {
    const name = `${prefix}${key}`;
    if (Array.isArray(item)) for (const entry of item) lines.push('', `[[${name}]]`, tomlText(entry as Record<string, unknown>, `${name}.`));
    else lines.push('', `[${name}]`, tomlText(item as Record<string, unknown>, `${name}.`));
  }
  return lines.join('\n');
}

const FORMS = ['plain', 'plain', 'plain', 'plain', 'fenced', 'prose', 'truncated', 'empty', 'whitespace'];

function textCase(random: Random, index: number): ParityCase {
  const schemaType = random.pick(['json', 'yaml', 'yaml', 'xml', 'xml', 'toml', 'toml', 'csv', 'csv']);
  const csv = schemaType === 'csv';
  let [schema, good, bad] = objectSchema(random, 0, random.int(1, 5), csv);
  const valid = random.chance(0.5);
  let instance: unknown = valid ? good : bad;
  if (!valid && random.chance(0.2)) instance = { ...(instance as object), unexpected: 1 };
  let root = 'root';
  if (csv) {
    schema = { type: 'array', items: schema };
    instance = random.pick([[instance], [good, instance], [instance, good, good]]);
  } else if (schemaType === 'xml' && random.chance(0.8)) {
    // 0.7.0's XML data names a root element in the schema (one property holding the object).
    root = random.pick(['response', 'data', 'result', 'root']);
    schema = { type: 'object', properties: { [root]: schema } };
  }
  if (random.chance(0.03)) schema = random.pick([{ ...schema, type: 'strnig' }, { ...schema, additionalProperties: 'false' }, { ...schema, required: { a: 1 } }]);
  let text: string;
  switch (schemaType) {
    case 'yaml':
      text = random.chance(0.15) ? JSON.stringify(instance) : yamlText(instance, { version: random.pick(['1.2', '1.1'] as const) });
      break;
    case 'xml':
      text = (random.chance(0.2) ? '<?xml version="1.0" encoding="UTF-8"?>\n' : '') + (random.chance(0.1) ? '<!-- generated -->' : '') + xmlText(random, instance, root);
      break;
    case 'toml':
      text = tomlText(instance as Record<string, unknown>);
      break;
    case 'csv':
      text = csvText(random, instance as Record<string, unknown>[]);
      break;
    default:
      text = JSON.stringify(instance, null, random.pick([0, 2])) ?? '';
  }
  const form = random.pick(FORMS);
  const body =
    form === 'fenced' ? `\`\`\`${schemaType}\n${text}\n\`\`\`` : form === 'prose' ? `Here it is:\n${text}` : form === 'truncated' ? truncate(text, 0.7) : form === 'empty' ? '' : form === 'whitespace' ? `\n  ${text}  \n` : text;
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: `Return ${schemaType} matching:\n${JSON.stringify(schema)}` }] },
    schema_str: JSON.stringify(schema),
    schema_type: schemaType,
    response: textResponse(body, index),
  };
  return { kind: `${schemaType}/${form}`, detail: valid ? 'valid' : 'invalid', verify };
}

const TOOL_FORMS = ['direct', 'direct', 'payload_key', 'payload_key', 'wrong_tool', 'two_calls', 'broken_arguments', 'missing_key', 'text_only', 'no_tool_name'];

function toolCallCase(random: Random, index: number): ParityCase {
  const [schema, good, bad] = objectSchema(random, 0, random.int(1, 5), false);
  const valid = random.chance(0.5);
  const instance = valid ? good : bad;
  const form = random.pick(TOOL_FORMS);
  const tool = random.pick(['extract_record', 'emit']);
  const key = random.pick(['extraction', 'payload', 'summary']);
  const args = form === 'payload_key' ? { [key]: instance } : form === 'missing_key' ? { result: instance } : instance;
  const call = (name: string) => callOutput(name, form === 'broken_arguments' ? JSON.stringify(args).slice(0, -2) : args, index);
  const output =
    form === 'wrong_tool' ? [call('distractor_tool')] : form === 'two_calls' ? [call(tool), call(tool)] : form === 'text_only' ? [textOutput(JSON.stringify(instance), index)] : [call(tool)];
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: `Call ${tool} with:\n${JSON.stringify(schema)}` }] },
    schema_str: JSON.stringify(schema),
    schema_type: random.pick(['json', 'yaml']),
    response: response(output, index),
    response_mode: 'tool_call',
    tool_schema_mode: form === 'payload_key' || form === 'missing_key' ? 'extraction_wrapper' : 'direct',
  };
  if (form !== 'no_tool_name') verify.tool_name = tool;
  if (form === 'payload_key' || form === 'missing_key') verify.tool_payload_key = key;
  return { kind: `tool_call/${form}`, detail: valid ? 'valid' : 'invalid', verify };
}

const COMPUTED = ['error_type', 'error_message'];

export const structuredOutputs: ParityEnvironment = {
  name: 'structured_outputs',
  configs: { ngym: 'structured_outputs_json.yaml', upstream: 'structured_outputs_json.yaml' },
  // error_message is Python's exception text on one side and a JS validator's on the other: not compared.
  fields: ['error_type'],
  generate(random, count) {
    const cases = dataRows('structured_outputs', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED));
    for (let index = cases.length; index < count; index += 1) cases.push(random.chance(0.15) ? toolCallCase(random, index) : textCase(random, index));
    return cases;
  },
};
