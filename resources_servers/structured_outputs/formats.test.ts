import { describe, expect, it } from 'vitest';
import { coerceCsv, coerceXml } from './coerce.ts';
import { CSV_REST_KEY, FormatError, parseContent } from './formats.ts';
import { SchemaValidator } from './schema-validation.ts';

const yaml = (text: string) => parseContent('yaml', text);

describe('yaml: PyYAML safe_load (YAML 1.1)', () => {
  it('reads 1.1 booleans, octal, sexagesimal and underscores as PyYAML does', () => {
    expect(yaml('a: yes\nb: No\nc: on\nd: OFF')).toEqual({ a: true, b: false, c: true, d: false });
    // PyYAML has no y/n booleans and needs an octal digit string after 0; 1e3 lacks the dot its floats need.
    expect(yaml('a: y\nb: n\nc: 08\nd: 1e3')).toEqual({ a: 'y', b: 'n', c: '08', d: '1e3' });
    expect(yaml('a: 0755\nb: 1:30\nc: 1_000\nd: 0x1F\ne: 1.5e+3\nf: 0b101')).toEqual({ a: 493, b: 90, c: 1000, d: 31, e: 1500, f: 5 });
    expect(yaml("a: '0755'\nb: \"yes\"")).toEqual({ a: '0755', b: 'yes' });
  });

  it('reads dates as non-JSON values (a string schema rejects them) and keeps merge keys and the last duplicate', () => {
    const value = yaml('d: 2024-05-10') as { d: unknown };
    expect(typeof value.d).toBe('symbol');
    expect(yaml('base: &b {x: 1}\nother:\n  <<: *b\n  y: 2')).toEqual({ base: { x: 1 }, other: { x: 1, y: 2 } });
    expect(yaml('a: 1\na: 2')).toEqual({ a: 2 });
  });

  it('fails with a FormatError on malformed text, several documents and `=`', () => {
    for (const text of ['a: [1, 2', 'a: b: c', '---\na: 1\n---\nb: 2', 'v: =']) expect(() => yaml(text), text).toThrow(FormatError);
  });
});

describe("xml: xmltodict.parse's shape", () => {
  const xml = (text: string) => parseContent('xml', text);
  it('gives {root: ...}, text stripped, attributes as @name, repeats as lists, empty elements null', () => {
    expect(xml('<r><a>1</a><a>2</a><b x="y">t</b><c/><d>  sp  </d></r>')).toEqual({ r: { a: ['1', '2'], b: { '@x': 'y', '#text': 't' }, c: null, d: 'sp' } });
    expect(xml('<?xml version="1.0"?><r>x<b>1</b>y<!-- c --></r>')).toEqual({ r: { b: '1', '#text': 'xy' } });
    expect(xml('<r><a><![CDATA[x<y]]></a><ns:b xmlns:ns="u">&amp;</ns:b></r>')).toEqual({ r: { a: 'x<y', 'ns:b': { '@xmlns:ns': 'u', '#text': '&' } } });
  });

  it('fails with a FormatError where expat does', () => {
    for (const text of ['<r><a>1</b></r>', '<r>', '<r/><s/>', 'Here:\n<r/>', '<r>&nbsp;</r>', ' <?xml version="1.0"?><r/>', '<r a="1" a="2"/>']) {
      expect(() => xml(text), text).toThrow(FormatError);
    }
  });
});

describe('toml: tomllib', () => {
  it('reads tables and arrays of tables; dates are not strings; errors are FormatErrors', () => {
    expect(parseContent('toml', 'a = 1\n[s]\nx = true\n[[t]]\nn = "a"\n[[t]]\nn = "b"')).toEqual({ a: 1, s: { x: true }, t: [{ n: 'a' }, { n: 'b' }] });
    expect(typeof (parseContent('toml', 'd = 2024-05-10') as { d: unknown }).d).toBe('symbol');
    for (const text of ['a = ', 'a = 1\na = 2', 'a = 01', 'Here:\na = 1']) expect(() => parseContent('toml', text), text).toThrow(FormatError);
  });
});

describe('csv: csv.DictReader (excel dialect)', () => {
  const csv = (text: string) => parseContent('csv', text);
  it('reads quoted fields, doubled quotes and newlines inside quotes; skips blank rows', () => {
    expect(csv('a,b\n"x,y","say ""hi"""\n\n"multi\nline",2\r\n')).toEqual([
      { a: 'x,y', b: 'say "hi"' },
      { a: 'multi\nline', b: '2' },
    ]);
  });

  it('puts surplus fields in a list under the rest key, missing ones as null; a leading blank line is an empty header', () => {
    expect(csv('a,b\n1,2,3\n4')).toEqual([{ a: '1', b: '2', [CSV_REST_KEY]: ['3'] }, { a: '4', b: null }]);
    expect(csv('\na,b\n1,2')).toEqual([{ [CSV_REST_KEY]: ['a', 'b'] }, { [CSV_REST_KEY]: ['1', '2'] }]);
    // Not strict: an unterminated quote keeps its field; text after a closing quote is kept.
    expect(csv('a,b\n"x"y,"open')).toEqual([{ a: 'xy', b: 'open' }]);
  });

  it('refuses a carriage return inside an unquoted record (Python reads the text without newline="")', () => {
    expect(() => csv('a,b\n1,2\r3,4\n')).toThrow(/new-line character seen in unquoted field/);
  });
});

describe('coercion toward the schema (coerce_xml_types, coerce_csv_types)', () => {
  it('xml: int/float/bool text, empty string elements, array wrappers; unconvertible text stays', () => {
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer' },
        f: { type: 'number' },
        b: { type: 'boolean' },
        s: { type: 'string' },
        tags: { type: 'array', items: { type: 'integer' } },
        one: { type: 'array', items: { type: 'string' } },
        bad: { type: 'integer' },
      },
    };
    const data = { n: ' 1_000 ', f: '2.5e1', b: 'True', s: null, tags: { item: ['1', '2'] }, one: { item: 'x' }, bad: '1.0', other: '3' };
    expect(coerceXml(data, schema)).toEqual({ n: 1000, f: 25, b: true, s: '', tags: [1, 2], one: ['x'], bad: '1.0', other: '3' });
    expect(coerceXml({ a: '1' }, { type: ['integer', 'null'] })).toEqual({ a: '1' });
  });

  it('csv: types per column, nullable lists, booleans 1/0, empty fields; a schema that is no dict raises', () => {
    const schema = { type: 'array', items: { properties: { n: { type: ['integer', 'null'] }, b: { type: 'boolean' }, s: {}, x: { type: 'number' } } } };
    expect(coerceCsv([{ n: '', b: '0', s: '7', x: 'nan' }, { n: '5', b: 'yes', s: '', x: '' }], schema)).toEqual([
      { n: null, b: false, s: '7', x: NaN },
      { n: 5, b: 'yes', s: '', x: '' },
    ]);
    expect(() => coerceCsv([{ a: '1' }], true)).toThrow(/AttributeError/);
  });
});

describe('the check in every schema type', () => {
  const validator = new SchemaValidator(8);
  const check = (schemaType: 'json' | 'yaml' | 'xml' | 'toml' | 'csv', schema: unknown, text: string, xmlCoerceTypes = true) =>
    validator.check(JSON.stringify(schema), { schemaType, text, xmlCoerceTypes });
  const person = { type: 'object', properties: { name: { type: 'string' }, born: { type: 'string' } } };

  it('gives parse_error, not a crash, for malformed answers in each type', () => {
    for (const [type, text] of [['json', '{'], ['yaml', 'a: [1'], ['xml', '<a>'], ['toml', 'a ='], ['csv', 'a\n1\r2']] as const) {
      expect(check(type, person, text)).toMatchObject({ reward: 0, error_type: 'parse_error' });
    }
  });

  it('rejects a YAML date where a string is asked, accepts it quoted', () => {
    expect(check('yaml', person, 'name: Ada\nborn: 1815-12-10')).toMatchObject({ reward: 0, error_type: 'validation_error' });
    expect(check('yaml', person, "name: Ada\nborn: '1815-12-10'").reward).toBe(1);
  });

  it('xml_coerce_types off leaves numbers as text (validation fails)', () => {
    const schema = { type: 'object', properties: { r: { type: 'object', properties: { n: { type: 'integer' } } } } };
    expect(check('xml', schema, '<r><n>3</n></r>').reward).toBe(1);
    expect(check('xml', schema, '<r><n>3</n></r>', false)).toMatchObject({ reward: 0, error_type: 'validation_error' });
  });

  it('csv against a non-array schema, or with a surplus column, fails validation', () => {
    expect(check('csv', person, 'name,born\nAda,1815').error_type).toBe('validation_error');
    expect(check('csv', { type: 'array', items: person }, 'name,born\nAda,1815,x').error_type).toBe('validation_error');
    expect(check('csv', { type: 'array', items: person }, 'name,born\nAda,1815').reward).toBe(1);
  });
});
