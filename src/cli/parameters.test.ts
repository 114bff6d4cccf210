/** A command's parameter schema is its one declaration: the help and readParameters both follow it. */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { globalConfigFromDict } from '../config/global-config.ts';
import { readParameters } from './command.ts';
import { parameterHelp, readElsewhere } from './parameters.ts';

const Queue = z.object({ url: z.string(), name: z.string().default('jobs'), lock_seconds: z.number().default(30) });

const Parameters = z.object({
  input: z.string().min(1).describe('The input.'),
  limit: z.number().int().min(0).nullable().default(null).describe('Rows.'),
  threshold: z.number().default(0.5).describe('Pass mark.'),
  ordered: z.boolean().default(false).describe('Keep order.'),
  files: z.array(z.string()).optional().describe('Files.'),
  tags: z.array(z.string()).default(['a', 'b']).describe('Tags.'),
  overrides: z.record(z.string(), z.unknown()).default({}).describe('Overrides.'),
  mode: z.enum(['fast', 'slow']).describe('Mode.'),
  server: z.object({ host: z.string(), port: z.number().int() }).default({ host: 'h', port: 1 }).describe('Server.'),
  timeout: z.number().optional().meta({ description: 'Timeout.', shownDefault: 'the request timeout' }),
  queue: Queue.optional().meta({ fields: { url: 'Redis.', name: 'Queue name.' } }),
  other_input: z.string().optional().meta({ aliasOf: 'input' }),
  token: readElsewhere(z.string(), 'Token.'),
});

describe('parameterHelp', () => {
  it('derives each line from the schema: type, description, default, required', () => {
    expect(parameterHelp(Parameters)).toEqual([
      { name: 'input', type: 'str', description: 'The input.', required: true },
      { name: 'limit', type: 'int', description: 'Rows.', default: 'null', required: false },
      { name: 'threshold', type: 'float', description: 'Pass mark.', default: '0.5', required: false },
      { name: 'ordered', type: 'bool', description: 'Keep order.', default: 'false', required: false },
      { name: 'files', type: 'list[str]', description: 'Files.', required: false },
      { name: 'tags', type: 'list[str]', description: 'Tags.', default: '[a, b]', required: false },
      { name: 'overrides', type: 'dict', description: 'Overrides.', default: '{}', required: false },
      { name: 'mode', type: 'fast | slow', description: 'Mode.', required: true },
      { name: 'server', type: '{host, port}', description: 'Server.', default: '{host: h, port: 1}', required: false },
      { name: 'timeout', type: 'float', description: 'Timeout.', default: 'the request timeout', required: false },
      // An optional object's fields are never required; only the listed fields appear.
      { name: 'queue.url', type: 'str', description: 'Redis.', required: false },
      { name: 'queue.name', type: 'str', description: 'Queue name.', default: 'jobs', required: false },
      // readParameters does not read it, but the help says what the key itself is.
      { name: 'token', type: 'str', description: 'Token.', required: true },
    ]);
    expect(parameterHelp(z.object({ queue: Queue.meta({ fields: { url: 'Redis.' } }) }))).toEqual([{ name: 'queue.url', type: 'str', description: 'Redis.', required: true }]);
  });

  it('refuses a parameter without a description, so none is left out of the help unnoticed', () => {
    expect(() => parameterHelp(z.object({ secret: z.string() }))).toThrow('The parameter secret has no description');
  });
});

describe('readParameters', () => {
  it('reads every declared key, aliases too, and leaves keys shared code reads to it', () => {
    const config = globalConfigFromDict({ input: 'in.jsonl', mode: 'fast', other_input: 'x', token: 42 });
    const parameters = readParameters(config, Parameters);
    expect(parameters).toMatchObject({ input: 'in.jsonl', other_input: 'x', limit: null, overrides: {} });
    expect(parameters.token).toBeUndefined();
  });

  it('names every missing required key', () => {
    expect(() => readParameters(globalConfigFromDict({}), Parameters)).toThrow('Missing required parameters: input, mode.');
  });
});
