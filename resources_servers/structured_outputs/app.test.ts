import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHttpClient } from 'ngym';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';
import { SchemaValidator, strictifySchema } from './schema-validation.ts';

const http = sharedHttpClient();
let gym: InProcessGym;

beforeAll(async () => {
  gym = await startInProcessGym({
    config: { structured_outputs: { resources_servers: { structured_outputs: { entrypoint: 'app.ts', domain: 'instruction_following', verify_workers: 1 } } } },
  });
});
afterAll(async () => gym?.close());

const message = (...texts: string[]) => ({
  type: 'message',
  role: 'assistant',
  id: 'msg_1',
  status: 'completed',
  content: texts.map((text) => ({ type: 'output_text', text, annotations: [] })),
});

async function verify(schema: unknown, output: unknown[], schemaType: string | undefined = 'json', extra: Record<string, unknown> = {}) {
  const body = {
    schema_str: typeof schema === 'string' ? schema : JSON.stringify(schema),
    schema_type: schemaType,
    schema_fields_count: 1,
    ...extra,
    responses_create_params: { input: [{ role: 'user', content: 'Answer in JSON.' }] },
    response: { id: 'resp_1', object: 'response', created_at: 0, model: 'm', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [] },
  };
  const response = await http.request(gym.url('structured_outputs', '/verify'), { body });
  return { status: response.status, body: response.json<Record<string, any>>(), text: response.text };
}

const score = async (schema: unknown, text: string) => (await verify(schema, [message(text)])).body.reward;

const person = { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } } };

describe('structured_outputs /verify', () => {
  it('rewards JSON that fits the schema and echoes the row', async () => {
    const result = await verify(person, [message('{"name": "Ada", "age": 36}')]);
    expect(result.status, result.text).toBe(200);
    expect(result.body).toMatchObject({ reward: 1, error_type: null, schema_type: 'json', schema_fields_count: 1 });
  });

  it('scores code fences and other non-JSON text 0 (parse_error)', async () => {
    const result = await verify(person, [message('```json\n{"name": "Ada", "age": 36}\n```')]);
    expect(result.body).toMatchObject({ reward: 0, error_type: 'parse_error' });
    expect((await verify(person, [message('  ')])).body).toMatchObject({ reward: 0, error_type: 'empty_response' });
  });

  it('makes every listed property required and forbids others (strictification)', async () => {
    expect(await score(person, '{"name": "Ada"}')).toBe(0);
    expect(await score(person, '{"name": "Ada", "age": 36, "extra": true}')).toBe(0);
    const nested = { type: 'object', properties: { owner: person, pets: { type: 'array', items: person } } };
    expect(await score(nested, '{"owner": {"name": "A", "age": 1}, "pets": [{"name": "B", "age": 2}]}')).toBe(1);
    expect(await score(nested, '{"owner": {"name": "A"}, "pets": []}')).toBe(0);
    expect(await score(nested, '{"owner": {"name": "A", "age": 1}, "pets": [{"name": "B", "age": 2, "x": 0}]}')).toBe(0);
  });

  it('leaves schemas inside lists (anyOf, allOf, prefixItems) as they are, as upstream', async () => {
    expect(await score({ anyOf: [person] }, '{"nickname": "A"}')).toBe(1);
    expect(await score({ type: 'array', prefixItems: [person] }, '[{"name": "A", "other": 1}]')).toBe(1);
    expect(await score({ allOf: [{ properties: { a: { type: 'string' } } }] }, '{"a": 5}')).toBe(0);
  });

  it('does not assert formats, and runs patterns as Python regexes', async () => {
    expect(await score({ type: 'string', format: 'email' }, '"not an email"')).toBe(1);
    // Python's \w is Unicode: "café" matches ^\w+$ (JavaScript's \w would not).
    expect(await score({ type: 'string', pattern: '^\\w+$' }, '"café"')).toBe(1);
    expect(await score({ type: 'string', pattern: '^\\w+$' }, '"two words"')).toBe(0);
    expect(await score({ type: 'object', properties: { a: {} }, patternProperties: { '^x-\\d$': {} } }, '{"a": 1, "x-٣": 2}')).toBe(1);
  });

  it("parses like Python's json.loads: NaN is a number, 2.0 an integer", async () => {
    expect(await score({ type: 'number' }, 'NaN')).toBe(1);
    expect(await score({ type: 'integer' }, '2.0')).toBe(1);
  });

  it('concatenates every output_text of every message, skipping other items', async () => {
    const output = [message('{"name": "Ada", '), { type: 'function_call', name: 'f', arguments: '{}', call_id: 'c' }, message('"age": 36}')];
    expect((await verify(person, output)).body.reward).toBe(1);
  });

  it('scores a schema that is not JSON 0 (schema_error), one the validator refuses 0 (validation_error), as 0.7.0', async () => {
    expect((await verify('{not json', [message('1')])).body).toMatchObject({ reward: 0, error_type: 'schema_error' });
    // openapi_schema_validator checks the schema inside the same try as the instance.
    expect((await verify({ type: 5 }, [message('1')])).body).toMatchObject({ reward: 0, error_type: 'validation_error' });
    // A parse failure is reported before the schema is checked.
    expect((await verify({ type: 5 }, [message('{')])).body).toMatchObject({ reward: 0, error_type: 'parse_error' });
  });

  it('reads the schema types of 0.7.0 and refuses others with 422 naming them', async () => {
    expect((await verify(person, [message('name: Ada\nage: 36')], 'yaml')).body).toMatchObject({ reward: 1, schema_type: 'yaml' });
    expect((await verify(person, [message('name = "Ada"\nage = 36')], 'toml')).body).toMatchObject({ reward: 1 });
    const rows = { type: 'array', items: person };
    expect((await verify(rows, [message('name,age\nAda,36\nBob,7')], 'csv')).body).toMatchObject({ reward: 1 });
    const wrapped = { type: 'object', properties: { person } };
    expect((await verify(wrapped, [message('<person><name>Ada</name><age>36</age></person>')], 'xml')).body).toMatchObject({ reward: 1 });
    const other = await verify(person, [message('name: Ada')], 'yml');
    expect(other.status).toBe(422);
    expect(other.text).toContain('schema_type must be one of json, yaml, xml, toml, csv');
    // Absent means json; the response echoes upstream's optional fields (null) and response_mode.
    const absent = await verify(person, [message('{"name": "Ada", "age": 36}')], undefined);
    expect(absent.body).toMatchObject({ reward: 1, schema_type: 'json', response_mode: 'text', tool_name: null, problem_type: null, num_tools: null });
  });

  it('xml_coerce_types: false (upstream key) validates XML text as strings', async () => {
    const strict = await startInProcessGym({
      config: { so: { resources_servers: { structured_outputs: { entrypoint: 'app.ts', domain: 'instruction_following', verify_workers: 1, xml_coerce_types: false } } } },
    });
    try {
      const wrapped = { type: 'object', properties: { person } };
      const body = {
        schema_str: JSON.stringify(wrapped),
        schema_type: 'xml',
        responses_create_params: { input: [] },
        response: { id: 'r', object: 'response', created_at: 0, model: 'm', output: [message('<person><name>Ada</name><age>36</age></person>')], parallel_tool_calls: true, tool_choice: 'auto', tools: [] },
      };
      const result = (await http.request(strict.url('so', '/verify'), { body })).json<Record<string, unknown>>();
      expect(result).toMatchObject({ reward: 0, error_type: 'validation_error' });
    } finally {
      await strict.close();
    }
  });

  it("tool-call mode: validates the one call's arguments (or the payload key), each miss with its error_type", async () => {
    const call = (name: string, args: string) => ({ type: 'function_call', name, arguments: args, call_id: `c_${name}` });
    const mode = { response_mode: 'tool_call', tool_name: 'extract_record' };
    const good = JSON.stringify({ name: 'Ada', age: 36 });
    const run = async (output: unknown[], extra: Record<string, unknown> = mode) => (await verify(person, output, 'json', extra)).body;
    expect(await run([call('extract_record', good)])).toMatchObject({ reward: 1, error_type: null, response_mode: 'tool_call' });
    // The schema type does not matter: the arguments are JSON.
    expect((await verify(person, [call('extract_record', good)], 'yaml', mode)).body).toMatchObject({ reward: 1 });
    expect(await run([call('extract_record', JSON.stringify({ extraction: { name: 'Ada', age: 36 } }))], { ...mode, tool_payload_key: 'extraction' })).toMatchObject({ reward: 1 });
    expect(await run([call('extract_record', JSON.stringify({ result: {} }))], { ...mode, tool_payload_key: 'extraction' })).toMatchObject({ reward: 0, error_type: 'missing_tool_payload_key' });
    expect(await run([call('other', good)])).toMatchObject({ reward: 0, error_type: 'wrong_tool_name' });
    expect(await run([call('other', good)], { response_mode: 'tool_call' })).toMatchObject({ reward: 1 });
    expect(await run([message(good)])).toMatchObject({ reward: 0, error_type: 'missing_tool_call' });
    expect(await run([call('extract_record', good), call('extract_record', good)])).toMatchObject({ reward: 0, error_type: 'multiple_tool_calls' });
    expect(await run([call('extract_record', '{"name":')])).toMatchObject({ reward: 0, error_type: 'tool_arguments_parse_error' });
    expect(await run([call('extract_record', JSON.stringify({ name: 'Ada', age: 'thirty' }))])).toMatchObject({ reward: 0, error_type: 'validation_error' });
    // Text mode (the default) ignores calls.
    expect(await run([call('extract_record', good)], {})).toMatchObject({ reward: 0, error_type: 'empty_response' });
  });

  it('re-verifies data/example_rollouts.jsonl to its recorded rewards', async () => {
    const lines = readFileSync(new URL('./data/example_rollouts.jsonl', import.meta.url), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const { reward, error_type, error_message, ...row } = JSON.parse(line) as Record<string, unknown>;
      const response = await http.request(gym.url('structured_outputs', '/verify'), { body: row });
      expect(response.json<Record<string, unknown>>()).toMatchObject({ reward, error_type, error_message });
    }
  });
});

const json = (text: string) => ({ schemaType: 'json' as const, text, xmlCoerceTypes: true });

describe('strictifySchema and the validator cache', () => {
  it('adds required and additionalProperties only where properties are, through dict values only', () => {
    const schema = strictifySchema({ properties: { a: { properties: { b: {} } } }, anyOf: [{ properties: { c: {} } }] }) as any;
    expect(schema.required).toEqual(['a']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.a).toEqual({ properties: { b: {} }, required: ['b'], additionalProperties: false });
    expect(schema.anyOf[0]).toEqual({ properties: { c: {} } });
  });

  it('compiles each distinct schema once, shares equal ones whatever their key order, and stays bounded', () => {
    const validator = new SchemaValidator(2);
    validator.check('{"type": "object", "properties": {"a": {"type": "string"}}}', json('{"a": "x"}'));
    validator.check('{"properties": {"a": {"type": "string"}}, "type": "object"}', json('{"a": "y"}'));
    expect(validator.stats).toEqual({ compiled: 1, hits: 1 });
    validator.check('{"type": "string"}', json('"x"'));
    validator.check('{"type": "integer"}', json('1'));
    // The LRU holds two: the first schema was evicted and compiles again.
    validator.check('{"type": "object", "properties": {"a": {"type": "string"}}}', json('{"a": "x"}'));
    expect(validator.stats.compiled).toBe(4);
  });

  it('compiles different schemas that share an $id', () => {
    const validator = new SchemaValidator(8);
    expect(validator.check('{"$id": "https://example.com/s", "type": "string"}', json('"x"')).reward).toBe(1);
    expect(validator.check('{"$id": "https://example.com/s", "type": "integer"}', json('"x"')).reward).toBe(0);
  });
});
