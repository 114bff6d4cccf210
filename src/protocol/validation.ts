/**
 * Turns zod validation failures into FastAPI's 422 body, `{"detail": [{type, loc, msg, input}]}`, which is
 * what NeMo Gym clients parse, and into one-line messages for logs and CLI errors.
 */
import type * as z from 'zod';
import { NgymError } from '../errors.ts';

export interface ValidationDetail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
}

// Pydantic's type and message for a value of the wrong JSON type, by the type zod expected.
const WRONG_TYPE: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  int: { type: 'int_type', msg: 'Input should be a valid integer' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  object: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  record: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
  null: { type: 'none_required', msg: 'Input should be None' },
};
const ECHOED_STRING_CHARS = 200;

/**
 * Zod's issues say a field is missing only through their input (undefined), which zod keeps only when asked:
 * parse with this, so a value of the wrong type is reported as such and not as a missing field.
 */
export function parseReportingInput<Schema extends z.ZodType>(schema: Schema, value: unknown) {
  return schema.safeParse(value, { reportInput: true });
}

/** The value a detail echoes back, as FastAPI does: scalars only (long strings cut), never a whole object. */
function echoedInput(input: unknown): unknown {
  if (typeof input === 'string') return input.length > ECHOED_STRING_CHARS ? `${input.slice(0, ECHOED_STRING_CHARS)}...` : input;
  return typeof input === 'object' && input !== null ? undefined : input;
}

function issueDetail(issue: z.core.$ZodIssue): { type: string; msg: string } {
  // With the input kept, an issue about no value at all (a type, a union, a literal) is a missing field.
  if (issue.input === undefined && issue.code !== 'custom') return { type: 'missing', msg: 'Field required' };
  if (issue.code === 'invalid_type') {
    const wrong = WRONG_TYPE[issue.expected];
    if (wrong !== undefined) return wrong;
  }
  return { type: issue.code, msg: issue.message };
}

/** FastAPI's 422 details of a failed parse; parse with {@link parseReportingInput} to tell missing from wrong type. */
export function validationDetails(error: z.ZodError, locationPrefix: (string | number)[] = ['body']): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment));
    if (issue.code === 'unrecognized_keys') {
      // FastAPI reports one entry per forbidden key, located at the key itself.
      for (const key of issue.keys) {
        details.push({ type: 'extra_forbidden', loc: [...locationPrefix, ...path, key], msg: 'Extra inputs are not permitted' });
      }
      continue;
    }
    const { type, msg } = issueDetail(issue);
    details.push({ type, loc: [...locationPrefix, ...path], msg, input: echoedInput(issue.input) });
  }
  return details;
}

export function describeValidationError(error: z.ZodError): string {
  return validationDetails(error, [])
    .map((detail) => `${detail.loc.length > 0 ? detail.loc.join('.') : '(root)'}: ${detail.msg}`)
    .join('; ');
}

/** A request body failed its schema: answered as a 422 with FastAPI's body. */
export class RequestValidationError extends NgymError {
  constructor(readonly details: ValidationDetail[]) {
    super('NGYM_INVALID_REQUEST', `Invalid request body: ${details.map((detail) => `${detail.loc.join('.')}: ${detail.msg}`).join('; ')}`, {
      status: 422,
    });
  }

  static fromZod(error: z.ZodError): RequestValidationError {
    return new RequestValidationError(validationDetails(error));
  }
}

const fastChecks = new Map<z.ZodType, (value: unknown) => boolean>();

/**
 * Registers an allocation-free check that accepts nothing `schema` rejects; `validateBody` then runs zod
 * only when the check fails, to produce the 422 detail (see fast-checks.ts).
 */
export function registerFastCheck(schema: z.ZodType, check: (value: unknown) => boolean): void {
  fastChecks.set(schema, check);
}

/** Validates without transforming and returns the very same object, so unknown fields survive. */
export function validateBody<T>(schema: z.ZodType, body: unknown): T {
  if (fastChecks.get(schema)?.(body)) return body as T;
  const result = parseReportingInput(schema, body);
  if (!result.success) throw RequestValidationError.fromZod(result.error);
  return body as T;
}
