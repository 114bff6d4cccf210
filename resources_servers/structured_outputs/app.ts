/**
 * structured_outputs: trains a model to answer in JSON that conforms to a JSON Schema given in the prompt
 * (content is not graded). Reward 1.0 when the whole assistant text parses as JSON and validates against the
 * row's schema made strict (every listed property required, no others), else 0.0.
 */
import { defineResourcesServer, responseOutputText, VerifyWorkerPool, verifyWorkersConfigShape } from 'ngym';
import * as z from 'zod';
import type { SchemaCheck } from './schema-validation.ts';
import type { SchemaTask } from './verify-worker.ts';

export default defineResourcesServer({
  className: 'StructuredOutputsResourcesServer',
  config: {
    /** Compiled schema validators kept per worker thread (LRU); a dataset reuses its schemas across rollouts. */
    validator_cache_size: z.number().int().positive().default(512),
    // verify_workers threads compile schemas and validate (compiling one takes tens of milliseconds).
    ...verifyWorkersConfigShape,
  },
  setup: ({ config }) => ({
    cacheSize: config.validator_cache_size,
    pool: new VerifyWorkerPool<SchemaTask, SchemaCheck>({
      module: new URL('./verify-worker.ts', import.meta.url),
      config,
      name: 'structured_outputs',
      check: 'schema check',
    }),
  }),
  close: (state) => state.pool.close(),
  verifyRequest: z.looseObject({
    schema_str: z.string(),
    schema_type: z.literal('json', { error: "schema_type must be 'json' (the only type in NeMo Gym v0.1.1)" }),
  }),
  verify: async (request, context) => {
    const { pool, cacheSize } = context.state;
    return pool.run({ schemaText: request.schema_str, responseText: responseOutputText(request.response), cacheSize });
  },
});
