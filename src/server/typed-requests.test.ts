/**
 * The request schemas type the handlers (checked by `tsc` in `npm test`): `verify` and `seedSession` see the
 * environment's own fields with their schema types, beside the common ones, with no cast.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import type { Response } from '../protocol/responses.ts';
import { defineResourcesServer } from './resources-server.ts';

describe('typed request fields', () => {
  it('verify and seedSession see their schemas’ fields typed', () => {
    const definition = defineResourcesServer({
      className: 'Typed',
      seedSessionRequest: z.looseObject({ initial_count: z.number().int() }),
      seedSession: (request) => {
        expectTypeOf(request.initial_count).toEqualTypeOf<number>();
      },
      verifyRequest: z.looseObject({ expected: z.array(z.string()), hint: z.string().optional(), mode: z.enum(['a', 'b']).default('a') }),
      verify: (request) => {
        // The body is passed on as sent: a default is not applied, so the field may be absent.
        expectTypeOf(request.mode).toEqualTypeOf<'a' | 'b' | undefined>();
        expectTypeOf(request.expected).toEqualTypeOf<string[]>();
        expectTypeOf(request.hint).toEqualTypeOf<string | undefined>();
        expectTypeOf(request.response).toEqualTypeOf<Response>();
        return { reward: request.expected.length > 0 ? 1 : 0 };
      },
    });
    expect(definition.kind).toBe('resources_servers');
  });
});
