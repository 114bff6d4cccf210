/**
 * XML and CSV parsers give strings; upstream 0.7.0 converts them toward the schema's types before validating
 * (`coerce_xml_types`, behind `xml_coerce_types`, and `coerce_csv_types`, always). A value that does not convert
 * stays as it was, so validation reports it. Conversions are Python's `int(text)`, `float(text)` and a
 * `true`/`1`/`false`/`0` boolean; a schema of the wrong shape raises as Python's `dict.get` would (the caller
 * turns that into `validation_error`, as upstream).
 */
import { parsePythonFloat, pythonInt } from 'ngym/python-compat';

type Json = Record<string, unknown>;
const isDict = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Python's `d.get(key, fallback)`: an AttributeError on anything but a dict. */
function get(value: unknown, key: string, fallback: unknown): unknown {
  if (!isDict(value)) throw new TypeError(`AttributeError: '${Array.isArray(value) ? 'list' : typeof value}' object has no attribute 'get'`);
  return Object.hasOwn(value, key) ? value[key] : fallback;
}

function pythonIntOf(text: string): number | undefined {
  try {
    return pythonInt(text);
  } catch {
    return undefined;
  }
}

/** The scalar rule both coercions share: `integer`, `number` and `boolean` from text; anything else unchanged. */
function coerceText(text: string, type: unknown): unknown {
  if (type === 'integer') return pythonIntOf(text) ?? text;
  if (type === 'number') return parsePythonFloat(text) ?? text;
  if (type === 'boolean') {
    const lower = text.toLowerCase();
    if (lower === 'true' || lower === '1') return true;
    if (lower === 'false' || lower === '0') return false;
  }
  return text;
}

/**
 * `coerce_xml_types`: walks xmltodict's value beside the schema. At an array, a one-key dict is the wrapper of
 * repeated child elements (`<tags><tag>a</tag><tag>b</tag></tags>`), so its value is taken, and a single value
 * becomes a list; an empty element (null) is `""` where a string is expected.
 */
export function coerceXml(data: unknown, schema: unknown): unknown {
  if (!isDict(schema) || !Object.hasOwn(schema, 'type')) return data;
  const type = schema.type;
  if (type === 'object' && isDict(data)) {
    const properties = get(schema, 'properties', {});
    const inProperties = (key: string) => (isDict(properties) ? Object.hasOwn(properties, key) : Array.isArray(properties) && properties.includes(key));
    return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, inProperties(key) ? coerceXml(value, (properties as Json)[key]) : value]));
  }
  if (type === 'array') {
    const items = get(schema, 'items', {});
    let list = isDict(data) && Object.keys(data).length === 1 ? Object.values(data)[0] : data;
    if (!Array.isArray(list)) list = list === null || list === undefined ? [] : [list];
    return (list as unknown[]).map((item) => coerceXml(item, items));
  }
  if (data === null && type === 'string') return '';
  return typeof data === 'string' ? coerceText(data, type) : data;
}

/** `_coerce_csv_scalar`: a list of types tries each (null for an empty field when listed), else one type. */
function coerceCsvScalar(value: unknown, type: unknown): unknown {
  if (Array.isArray(type)) {
    if ((value === null || value === '') && type.includes('null')) return null;
    for (const each of type) {
      if (each === 'null') continue;
      const result = coerceCsvScalar(value, each);
      if (typeof result !== 'string' || each === 'string') return result;
    }
    return value;
  }
  if (value === null || value === '') return value;
  if (typeof value !== 'string') {
    // Python's int()/float() of the list under the rest key raises TypeError, which upstream does not catch.
    if (type === 'integer' || type === 'number') throw new TypeError(`TypeError: ${type === 'integer' ? 'int' : 'float'}() argument must be a string or a real number, not 'list'`);
    if (type === 'boolean') throw new TypeError("AttributeError: 'list' object has no attribute 'lower'");
    return value;
  }
  return coerceText(value, type);
}

/** `coerce_csv_types`: each row's fields by the type of the same-named property of `items` (default string). */
export function coerceCsv(rows: Json[], schema: unknown): Json[] {
  const items = get(schema, 'items', schema);
  const properties = get(items, 'properties', {});
  return rows.map((row) =>
    Object.fromEntries(
      Object.entries(row).map(([key, value]) => {
        const property = get(properties, key, {});
        return [key, coerceCsvScalar(value, get(property, 'type', 'string'))];
      }),
    ),
  );
}
