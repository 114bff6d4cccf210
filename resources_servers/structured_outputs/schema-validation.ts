/**
 * JSON Schema checks as NeMo Gym's structured_outputs runs them (`openapi_schema_validator.validate`, the
 * OpenAPI 3.1 dialect of JSON Schema 2020-12): the schema is first made strict, the response must parse in its
 * schema type as Python reads it (`formats.ts`), and formats are not asserted. `pattern` and `patternProperties` are
 * Python regexes there (`re.search`), so they run through our Python regex translation.
 *
 * Compiled validators are cached by a stable hash of the strict schema, in a bounded LRU: datasets reuse a
 * few thousand schemas, and compiling one costs far more than validating with it.
 */
import { createHash } from 'node:crypto';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { pythonJsonLoads, PythonRegex } from 'ngym/python-compat';
import { coerceCsv, coerceXml } from './coerce.ts';
import { parseContent, type SchemaType } from './formats.ts';

/**
 * Upstream's `strictify_schema`: every object (dict) that has `properties` gets `required` = all its property
 * names and `additionalProperties: false`; recursion goes through dict values only, so schemas inside lists
 * (`anyOf`, `allOf`, `prefixItems`...) are left as they are. Mutates and returns `schema`.
 */
export function strictifySchema(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return schema;
  const record = schema as Record<string, unknown>;
  if (Object.hasOwn(record, 'properties')) {
    record.required = pythonList(record.properties);
    record.additionalProperties = false;
  }
  for (const value of Object.values(record)) strictifySchema(value);
  return schema;
}

/** Python's `list(x)` for a JSON value: a dict's keys, a list's items, a string's characters. */
function pythonList(value: unknown): unknown[] {
  if (typeof value === 'string') return Array.from(value);
  if (Array.isArray(value)) return [...value];
  if (typeof value === 'object' && value !== null) return Object.keys(value);
  throw new TypeError(`'${value === null ? 'NoneType' : typeof value}' object is not iterable`);
}

/** JSON with object keys sorted, so equal schemas hash alike whatever their key order or spacing. */
function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableStringify((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** ajv calls this for `pattern` and `patternProperties`: Python `re.search` semantics. */
const pythonRegExp = Object.assign(
  (pattern: string) => {
    const regex = PythonRegex.cached(pattern);
    return { test: (text: string) => regex.search(text) !== null, toString: () => pattern };
  },
  { code: 'pythonRegExp' },
);

/** Why a check failed: upstream 0.7.0's `error_type` values (the tool-call ones come from `tool-call.ts`). */
type SchemaErrorType = 'empty_response' | 'schema_error' | 'parse_error' | 'validation_error';

export type SchemaCheck<ErrorType extends string = SchemaErrorType> =
  | { reward: 1.0; error_type: null; error_message: null }
  | { reward: 0.0; error_type: ErrorType; error_message: string };

export function failure<ErrorType extends string>(errorType: ErrorType, message: string): SchemaCheck<ErrorType> {
  return { reward: 0.0, error_type: errorType, error_message: message.slice(0, 300) };
}

/** What to check: an answer's text in a `schema_type`, or (tool-call mode) a payload already parsed. */
export type Answer = { schemaType: SchemaType; text: string; xmlCoerceTypes: boolean } | { payload: unknown };

export class SchemaValidator {
  private readonly ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false, code: { regExp: pythonRegExp } });
  private readonly cache = new Map<string, ValidateFunction>();
  readonly stats = { compiled: 0, hits: 0 };

  constructor(private readonly cacheSize: number) {
    // Formats are known (no "unknown format" surprises) but, as upstream, not asserted.
    addFormats.default(this.ajv);
  }

  /** Compiles (or reuses) the validator of a strict schema; throws on an invalid schema. */
  validatorFor(schema: unknown): ValidateFunction {
    const key = createHash('sha256').update(stableStringify(schema)).digest('base64url');
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.stats.hits++;
      // Re-insert: Map order is the LRU order.
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached;
    }
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(schema as object);
    } finally {
      // ajv keeps every compiled schema (and its $id) itself; drop it there, our LRU owns the function.
      if (typeof schema === 'object' && schema !== null) this.ajv.removeSchema(schema);
    }
    this.stats.compiled++;
    this.cache.set(key, validate);
    if (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    return validate;
  }

  /**
   * Upstream's verify after the answer is found: the schema parses (`schema_error`) and is made strict; a text
   * answer must not be blank (`empty_response`) and must parse in its schema type (`parse_error`); XML and CSV
   * values are coerced toward the schema; then the value must validate (`validation_error`, which is also what
   * a schema the validator refuses gets, as `openapi_schema_validator.validate` checks the schema first).
   */
  check(schemaText: string, answer: Answer): SchemaCheck {
    if ('text' in answer && answer.text.trim() === '') return failure('empty_response', 'No assistant response text');
    let schema: unknown;
    try {
      schema = strictifySchema(pythonJsonLoads(schemaText));
    } catch (error) {
      return failure('schema_error', describe(error));
    }
    let instance: unknown;
    if ('payload' in answer) instance = answer.payload;
    else {
      try {
        instance = parseContent(answer.schemaType, answer.text);
      } catch (error) {
        return failure('parse_error', describe(error));
      }
    }
    try {
      if ('text' in answer && answer.schemaType === 'xml' && answer.xmlCoerceTypes) instance = coerceXml(instance, schema);
      if ('text' in answer && answer.schemaType === 'csv') instance = coerceCsv(instance as Record<string, unknown>[], schema);
      const validate = this.validatorFor(schema);
      if (validate(instance)) return { reward: 1.0, error_type: null, error_message: null };
      const first = validate.errors?.[0];
      return failure('validation_error', first === undefined ? 'invalid' : `${first.instancePath || '/'} ${first.message ?? 'is invalid'}`);
    } catch (error) {
      return failure('validation_error', describe(error));
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
