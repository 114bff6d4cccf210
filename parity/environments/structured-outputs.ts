/**
 * structured_outputs: the example rollouts, then generated schemas (nested objects, arrays, enums, numbers with
 * bounds, optional and nullable fields) with valid and invalid instances written in each schema type upstream
 * 0.7.0 reads (json, yaml, xml, toml, csv), fenced, with prose, truncated, empty, or as a tool call.
 */
import { stringify as yamlText } from 'yaml';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textResponse, truncate } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

type Schema = Record<string, unknown>;

function leaf(random: Random, depth: number): [Schema, unknown, unknown] {
  const kind = random.pick(depth > 1 ? ['string', 'integer', 'number', 'boolean', 'enum'] : ['string', 'integer', 'number', 'boolean', 'enum', 'array', 'object']);
  switch (kind) {
    case 'string':
      return [{ type: 'string' }, random.pick(['Harbor Street', 'a', '', 'Zürich']), random.int(1, 9)];
    case 'integer':
      return [{ type: 'integer', minimum: 0 }, random.int(0, 500), random.pick([-3, 2.5, 'seven'])];
    case 'number':
      return [{ type: 'number' }, random.pick([3.5, 89, 0.001]), 'cheap'];
    case 'boolean':
      return [{ type: 'boolean' }, random.chance(0.5), 'yes'];
    case 'enum':
      return [{ type: 'string', enum: ['low', 'medium', 'high'] }, random.pick(['low', 'high']), 'urgent'];
    case 'array': {
      const [items, good, bad] = leaf(random, depth + 1);
      return [{ type: 'array', items }, [good, good], [good, bad]];
    }
    default: {
      const [schema, good, bad] = objectSchema(random, depth + 1, random.int(1, 3));
      return [schema, good, bad];
    }
  }
}

function objectSchema(random: Random, depth: number, size: number): [Schema, Record<string, unknown>, Record<string, unknown>] {
  const properties: Record<string, Schema> = {};
  const good: Record<string, unknown> = {};
  const bad: Record<string, unknown> = {};
  const names = random.shuffled(['name', 'count', 'price', 'active', 'level', 'tags', 'route', 'date', 'owner', 'items']).slice(0, size);
  const broken = random.int(0, size - 1);
  names.forEach((name, position) => {
    const [schema, value, wrong] = leaf(random, depth);
    properties[name] = schema;
    good[name] = value;
    bad[name] = position === broken ? wrong : value;
  });
  return [{ type: 'object', properties }, good, bad];
}

function csvText(rows: Record<string, unknown>[]): string {
  const keys = Object.keys(rows[0] ?? {});
  return [keys.join(','), ...rows.map((row) => keys.map((key) => String(row[key] ?? '')).join(','))].join('\n');
}

function xmlText(value: unknown, tag = 'root'): string {
  if (Array.isArray(value)) return `<${tag}>${value.map((item) => xmlText(item, 'item')).join('')}</${tag}>`;
  if (value !== null && typeof value === 'object') return `<${tag}>${Object.entries(value).map(([key, item]) => xmlText(item, key)).join('')}</${tag}>`;
  return `<${tag}>${String(value)}</${tag}>`;
}

function tomlText(value: Record<string, unknown>): string {
  return Object.entries(value)
    .map(([key, item]) => `${key} = ${typeof item === 'string' ? JSON.stringify(item) : Array.isArray(item) || (item !== null && typeof item === 'object') ? JSON.stringify(item).replaceAll(':', ' = ').replace(/"(\w+)" = /g, '$1 = ') : String(item)}`)
    .join('\n');
}

function generated(random: Random, index: number): ParityCase {
  const schemaType = random.pick(['json', 'json', 'json', 'yaml', 'xml', 'toml', 'csv']);
  let [schema, good, bad] = objectSchema(random, 0, random.int(1, 5));
  if (random.chance(0.3)) schema.required = Object.keys(schema.properties as object);
  if (random.chance(0.2)) schema.additionalProperties = false;
  const valid = random.chance(0.5);
  let instance: unknown = valid ? good : bad;
  if (!valid && random.chance(0.3)) instance = { ...(instance as object), unexpected: 1 };
  if (schemaType === 'csv') {
    schema = { type: 'array', items: schema };
    instance = [instance, good];
  }
  const write = (value: unknown): string => {
    switch (schemaType) {
      case 'yaml':
        return yamlText(value);
      case 'xml':
        return xmlText(value);
      case 'toml':
        return tomlText(value as Record<string, unknown>);
      case 'csv':
        return csvText(value as Record<string, unknown>[]);
      default:
        return JSON.stringify(value, null, random.pick([0, 2]));
    }
  };
  const text = write(instance);
  const form = random.pick(['plain', 'plain', 'plain', 'fenced', 'prose', 'truncated', 'empty', 'whitespace', 'tool_call']);
  const body = form === 'fenced' ? `\`\`\`${schemaType}\n${text}\n\`\`\`` : form === 'prose' ? `Here it is:\n${text}` : form === 'truncated' ? truncate(text, 0.7) : form === 'empty' ? '' : form === 'whitespace' ? `\n  ${text}  \n` : text;
  const toolMode = form === 'tool_call' && random.chance(0.5);
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: `Return ${schemaType} matching:\n${JSON.stringify(schema)}` }] },
    schema_str: JSON.stringify(schema),
    schema_type: schemaType,
    response: form === 'tool_call' ? response([callOutput('emit', toolMode ? { payload: instance } : instance, index)], index) : textResponse(body, index),
  };
  if (toolMode) Object.assign(verify, { response_mode: 'tool_call', tool_name: 'emit', tool_payload_key: 'payload' });
  return { kind: `${schemaType}/${form}`, detail: valid ? 'valid' : 'invalid', verify };
}

const COMPUTED = ['error_type', 'error_message'];

export const structuredOutputs: ParityEnvironment = {
  name: 'structured_outputs',
  configs: { ngym: 'structured_outputs_json.yaml', upstream: 'structured_outputs_json.yaml' },
  // error_message is Python's exception text on one side and a JS validator's on the other: not compared.
  fields: ['error_type'],
  generate(random, count) {
    const cases = dataRows('structured_outputs', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED));
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases;
  },
};
