/**
 * A command declares its `+key=value` parameters once, as a zod object: readParameters parses it, and the help
 * lists it (type, `.describe()` text, `.default()`, required or not), so the two cannot drift apart. The `.meta()`
 * keys below say what a zod type cannot: a default worked out at run time, the documented fields of an object
 * key, another name of a key, a key that shared code reads.
 */
import * as z from 'zod';

declare module 'zod' {
  interface GlobalMeta {
    /** The default in words, when the command works it out at run time rather than with `.default()`. */
    shownDefault?: string;
    /** For an object-valued key such as `queue`: the fields the help lists (`+queue.url`), with their descriptions. */
    fields?: Record<string, string>;
    /** This key is another name of that one (as upstream accepts); the help lists that one only. */
    aliasOf?: string;
    /** Shared code reads and checks this key (the config loader, the server client); readParameters leaves it alone. */
    readElsewhere?: boolean;
  }
}

/**
 * A key this command's help lists but shared code reads and checks: `schema` is its type for the help, and it is
 * optional to readParameters, which does not read it.
 */
export function readElsewhere<Schema extends z.ZodType>(schema: Schema, description: string) {
  return schema.optional().meta({ description, readElsewhere: true });
}

/** The key every command that composes a config takes; the config loader reads it. */
export const ConfigPaths = readElsewhere(z.array(z.string()).optional(), 'YAML config files to compose, in order.');

export interface ParameterHelp {
  name: string;
  type: string;
  description: string;
  default?: string;
  required: boolean;
}

/** The schema a wrapper (optional, nullable, default, preprocess) wraps; undefined for any other schema. */
function wrapped(schema: z.ZodType): z.ZodType | undefined {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) return schema.unwrap() as z.ZodType;
  // z.preprocess: the value is what the pipe puts out.
  if (schema instanceof z.ZodPipe) return schema.out as z.ZodType;
  return undefined;
}

/** The metadata of a schema and the schemas it wraps, the outer one's first (`.describe()` may come before `.optional()`). */
function metaOf(schema: z.ZodType): z.GlobalMeta {
  const inner = wrapped(schema);
  return { ...(inner === undefined ? {} : metaOf(inner)), ...schema.meta() };
}

/** The schema under every wrapper: the value's own type. */
function unwrapped(schema: z.ZodType): z.ZodType {
  const inner = wrapped(schema);
  return inner === undefined ? schema : unwrapped(inner);
}

/** Upstream's (Python's) names of the types, as its help says them. */
function typeName(schema: z.ZodType): string {
  const value = unwrapped(schema);
  if (value instanceof z.ZodString) return 'str';
  if (value instanceof z.ZodNumber) return value.format?.includes('int') ? 'int' : 'float';
  if (value instanceof z.ZodBoolean) return 'bool';
  if (value instanceof z.ZodArray) return `list[${typeName(value.element as z.ZodType)}]`;
  if (value instanceof z.ZodRecord) return 'dict';
  if (value instanceof z.ZodEnum) return value.options.join(' | ');
  if (value instanceof z.ZodObject) return `{${Object.keys(value.shape).join(', ')}}`;
  return value.def.type;
}

/** A value as a YAML flow scalar or mapping, the way a user writes it in an override. */
function flowYaml(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(flowYaml).join(', ')}]`;
  return `{${Object.entries(value).map(([key, item]) => `${key}: ${flowYaml(item)}`).join(', ')}}`;
}

function defaultOf(schema: z.ZodType): string | undefined {
  if (schema instanceof z.ZodDefault) return flowYaml(schema.def.defaultValue);
  const inner = wrapped(schema);
  return inner === undefined ? undefined : defaultOf(inner);
}

const isRequired = (schema: z.ZodType) => !schema.safeParse(undefined).success;

function help(name: string, schema: z.ZodType, description: string | undefined, required: boolean): ParameterHelp {
  if (description === undefined) throw new Error(`The parameter ${name} has no description (.describe()).`);
  const shown = metaOf(schema).shownDefault ?? defaultOf(schema);
  return { name, type: typeName(schema), description, ...(shown === undefined ? {} : { default: shown }), required };
}

/** The help's lines of a command's parameters, in the schema's order. */
export function parameterHelp(parameters: z.ZodObject): ParameterHelp[] {
  return Object.entries(parameters.shape).flatMap(([key, declared]: [string, z.ZodType]) => {
    const meta = metaOf(declared);
    if (meta.aliasOf !== undefined) return [];
    // readElsewhere made it optional for readParameters; the help says what the key itself is.
    const schema = meta.readElsewhere === true ? (wrapped(declared) as z.ZodType) : declared;
    if (meta.fields === undefined) return [help(key, schema, meta.description, isRequired(schema))];
    const object = unwrapped(schema);
    if (!(object instanceof z.ZodObject)) throw new Error(`The parameter ${key} lists fields but is not an object.`);
    return Object.entries(meta.fields).map(([field, description]) => {
      const fieldSchema = object.shape[field] as z.ZodType | undefined;
      if (fieldSchema === undefined) throw new Error(`The parameter ${key} has no field ${field}.`);
      return help(`${key}.${field}`, fieldSchema, description, isRequired(schema) && isRequired(fieldSchema));
    });
  });
}

/** The keys readParameters reads: every key but those shared code reads. */
export function parameterKeys(parameters: z.ZodObject): string[] {
  return Object.entries(parameters.shape)
    .filter(([, schema]: [string, z.ZodType]) => metaOf(schema).readElsewhere !== true)
    .map(([key]) => key);
}

/** How Python servers get their environments (src/gym/python-environment.ts): `ngym run` and `ngym prefetch` take these. */
export const PythonEnvironmentParameters = {
  python_executable: readElsewhere(z.string(), "The interpreter with nemo-gym that Python servers are layered on (default: the virtual environment the server's folder sits in, else python3)."),
  python_server_roots: readElsewhere(z.array(z.string()), "Folders holding upstream's servers (default: asked of the Python: where its nemo_gym is)."),
  prefer_upstream: readElsewhere(z.boolean().default(false), "Run upstream's app.py (and read its config files) where ngym has a TypeScript version of the same name."),
  uv_venv_dir: readElsewhere(z.string(), 'Where Python servers\' own environments go, as <uv_venv_dir>/<type>/<name>/.venv (default: a folder\'s existing .venv, else <cache_dir>/venvs).'),
  uv_cache_dir: readElsewhere(z.string(), "uv's package cache, shared by every environment (default: <cache_dir>/uv)."),
  cache_dir: readElsewhere(z.string().default('cache'), 'Root of the uv cache and the environments.'),
  skip_venv_if_present: readElsewhere(z.boolean().default(false), 'Use an existing environment as it is, without checking what it holds.'),
  offline: readElsewhere(z.boolean().default(false), 'Download nothing: a server whose environment needs a download fails before anything starts (also UV_OFFLINE=1).'),
  python_env_build_concurrency: readElsewhere(z.number().int().min(1).default(2), 'Environments built at once.'),
  uv_lock_timeout_seconds: readElsewhere(z.number().default(1800), 'How long to wait for another process building the same environment.'),
  pip_install_verbose: readElsewhere(z.boolean().default(false), "uv's verbose output in the build logs."),
};
