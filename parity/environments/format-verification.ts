/**
 * format_verification: upstream 0.7.0's recorded rollouts and ours, then generated rows of both dataset kinds.
 * Freeform (`regex`, and `inline_prose`, routed to the same check): the pattern families of upstream's ds2 data
 * (bullets, numbered lists, headings, key-value lines, tables, delimiters, mixed and web formats), one to three
 * patterns, minimums of 0 to 5 (absent, fractional, boolean), answered with enough lines, too few, near misses
 * (no space, another bullet, CRLF, indentation, full-width or Arabic-Indic digits), prose, nothing, cut short.
 * Citation (`string_match`): upstream's nine reference styles, patterns as upstream's data writes them (each
 * expected marker `re.escape`d) or one for the whole style, or none; answers citing all, too few, too many, near
 * misses (`[ref: 2]`, `[Ref:2]`, `[ref:02]`), repeats. Both kinds also as split messages, behind reasoning, as tool
 * calls only; and malformed rows (unknown types, invalid patterns, wrong types) that both sides refuse.
 */
import type { ResponseItem } from '../../src/protocol/index.ts';
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { SeededRandom as Random } from 'ngym';

const COMPUTED = ['match_details'];
const FREEFORM_AGENT = { type: 'responses_api_agents', name: 'freeform_formatting_simple_agent' };
const CITATION_AGENT = { type: 'responses_api_agents', name: 'citation_format_simple_agent' };

const FACTS = ['Skerryvore was built from 1838 to 1844', 'its tower is 48 metres tall', 'the granite came from Mull', 'it was automated in 1994', 'Zürich lies on the Limmat', 'the canal has 63 locks', 'Riquet directed the works', 'Jodrell Bank dates from 1945', '"Ölüdeniz" is a lagoon', 'costs rose by 12.5%'];
const KEYS = ['Name', 'Built', 'Height', 'Architect', 'Status', 'Année', 'Location of the site'];

/** A pattern family of upstream's ds2 data: its id, patterns, and how a line that follows it (or nearly) is written. */
interface Family {
  id: string;
  patterns: string[];
  line: (fact: string, index: number, random: Random) => string;
  nearMiss: (fact: string, index: number, random: Random) => string;
}

const ROMAN = ['i', 'ii', 'iii', 'iv', 'v', 'vi', 'vii', 'viii'];
const fullWidthDigits = (text: string) => text.replace(/\d/g, (digit) => String.fromCharCode(0xff10 + Number(digit)));
const arabicIndicDigits = (text: string) => text.replace(/\d/g, (digit) => String.fromCharCode(0x0660 + Number(digit)));

const FAMILIES: Family[] = [
  { id: 'bullet_dash', patterns: ['^- .+'], line: (fact) => `- ${fact}`, nearMiss: (fact, _, random) => random.pick([`-${fact}`, ` - ${fact}`, `• ${fact}`, `– ${fact}`, '- ']) },
  { id: 'bullet_asterisk', patterns: ['^\\* .+'], line: (fact) => `* ${fact}`, nearMiss: (fact, _, random) => random.pick([`*${fact}`, `** ${fact}`, `- ${fact}`]) },
  { id: 'bullet_arrow', patterns: ['^\u2192 .+'], line: (fact) => `\u2192 ${fact}`, nearMiss: (fact, _, random) => random.pick([`-> ${fact}`, `\u2192${fact}`, `\u21d2 ${fact}`]) },
  { id: 'bullet_double_dash', patterns: ['^-- .+'], line: (fact) => `-- ${fact}`, nearMiss: (fact, _, random) => random.pick([`- ${fact}`, `—— ${fact}`, `--${fact}`]) },
  { id: 'numbered_dot', patterns: ['^\\d+\\. .+'], line: (fact, index) => `${index + 1}. ${fact}`, nearMiss: (fact, index, random) => random.pick([`${index + 1}) ${fact}`, `${index + 1}.${fact}`, `#${index + 1}. ${fact}`]) },
  { id: 'numbered_letter', patterns: ['^[a-z]\\) .+'], line: (fact, index) => `${'abcdefgh'[index]}) ${fact}`, nearMiss: (fact, index, random) => random.pick([`${'ABCDEFGH'[index]}) ${fact}`, `(${'abcdefgh'[index]}) ${fact}`]) },
  { id: 'numbered_roman', patterns: ['(?i)^(?:i|ii|iii|iv|v|vi|vii|viii|ix|x)\\. .+'], line: (fact, index) => `${ROMAN[index] ?? 'x'}. ${fact}`, nearMiss: (fact, index, random) => random.pick([`${index + 1}. ${fact}`, `${ROMAN[index] ?? 'x'}) ${fact}`]) },
  { id: 'numbered_paren', patterns: ['^\\(\\d+\\) .+'], line: (fact, index) => `(${index + 1}) ${fact}`, nearMiss: (fact, index, random) => random.pick([`${index + 1}) ${fact}`, `( ${index + 1}) ${fact}`]) },
  { id: 'heading_hash', patterns: ['^#{1,6} .+'], line: (fact, index) => `${'#'.repeat((index % 3) + 1)} ${fact}`, nearMiss: (fact, _, random) => random.pick([`#${fact}`, `####### ${fact}`, ` # ${fact}`]) },
  { id: 'heading_equals', patterns: ['^=+ .+ =+$'], line: (fact) => `== ${fact} ==`, nearMiss: (fact, _, random) => random.pick([`== ${fact}`, `==${fact}==`]) },
  { id: 'heading_caps', patterns: ['^[A-Z][A-Z0-9 ]{3,}$'], line: (fact) => fact.toUpperCase().replace(/[^A-Z0-9 ]/g, ''), nearMiss: (fact) => fact },
  { id: 'kv_colon', patterns: ['^[A-Z][\\w ]{0,30}:\\s+\\S.*'], line: (fact, index) => `${KEYS[index % KEYS.length]}: ${fact}`, nearMiss: (fact, index, random) => random.pick([`${KEYS[index % KEYS.length]} - ${fact}`, `${KEYS[index % KEYS.length]}:`, `${(KEYS[index % KEYS.length] as string).toLowerCase()}: ${fact}`]) },
  { id: 'kv_arrow', patterns: ['^.{2,30}\\s*->\\s*.+'], line: (fact, index) => `${KEYS[index % KEYS.length]} -> ${fact}`, nearMiss: (fact, index) => `${KEYS[index % KEYS.length]} => ${fact}` },
  { id: 'kv_equals', patterns: ['^.{2,30}\\s*=\\s*.+'], line: (fact, index) => `${KEYS[index % KEYS.length]} = ${fact}`, nearMiss: (fact, index, random) => random.pick([`${KEYS[index % KEYS.length]} == `, `= ${fact}`, `${'x'.repeat(40)} = ${fact}`]) },
  { id: 'kv_quoted', patterns: ['^"[^"]+":\\s*.+'], line: (fact, index) => `"${KEYS[index % KEYS.length]}": ${fact}`, nearMiss: (fact, index) => `'${KEYS[index % KEYS.length]}': ${fact}` },
  { id: 'table_markdown', patterns: ['^\\|.*\\|\\s*$', '^\\|?\\s*:?-{3,}:?\\s*\\|'], line: (fact, index) => (index === 1 ? '| --- | --- |' : `| ${index} | ${fact} |`), nearMiss: (fact, index) => `${index} | ${fact}` },
  { id: 'table_pipe', patterns: ['^[^|]+(?:\\|[^|]+){2,}$'], line: (fact, index) => `${index} | ${fact} | ok`, nearMiss: (fact, index) => `${index} | ${fact}` },
  { id: 'delimiter_hr', patterns: ['^-{3,}\\s*$', '^\\*{3,}\\s*$'], line: (fact, index) => (index % 2 === 0 ? '---' : fact), nearMiss: () => '--' },
  { id: 'mixed_inline_numbered_heading', patterns: ['^\\d+\\.\\s*".+":\\s*.+'], line: (fact, index) => `${index + 1}. "${KEYS[index % KEYS.length]}": ${fact}`, nearMiss: (fact, index) => `${index + 1}. ${KEYS[index % KEYS.length]}: ${fact}` },
  { id: 'web_numbered_steps', patterns: ['^Step \\d+:\\s+\\S', '^\\*\\*Step \\d+\\*\\*'], line: (fact, index) => (index % 2 === 0 ? `Step ${index + 1}: ${fact}` : `**Step ${index + 1}** ${fact}`), nearMiss: (fact, index) => `step ${index + 1}: ${fact}` },
  { id: 'inline_bold_numbers', patterns: ['\\*\\*\\d[\\d,.]*\\*\\*'], line: (fact, index) => `It says **${index * 7 + 3}** for ${fact}.`, nearMiss: (fact, index) => `It says *${index * 7 + 3}* for ${fact}.` },
  { id: 'unicode_word', patterns: ['^\\w+: \\w+'], line: (fact, index) => `${['Année', 'Größe', 'Ölüdeniz', 'Ιστορία', 'Name'][index % 5]}: ${fact}`, nearMiss: (fact) => `: ${fact}` },
];

/** How the lines of a freeform answer are laid out around the formatted ones. */
function freeformText(random: Random, family: Family, needed: number): { form: string; text: string } {
  const facts = random.shuffled(FACTS);
  const count = random.pick([0, 1, 2, needed - 1, needed, needed, needed, needed + 1, needed + 2].filter((value) => value >= 0));
  const lines = facts.slice(0, count).map((fact, index) => family.line(fact, index, random));
  const form = random.pick(['plain', 'plain', 'plain', 'intro', 'near_miss', 'mixed_near_miss', 'crlf', 'indented', 'full_width', 'arabic_digits', 'blank_lines', 'prose', 'empty', 'whitespace', 'truncated', 'trailing_spaces']);
  switch (form) {
    case 'intro':
      return { form, text: `Here is the answer.\n\n${lines.join('\n')}\n\nThat is all.` };
    case 'near_miss':
      return { form, text: facts.slice(0, Math.max(count, 2)).map((fact, index) => family.nearMiss(fact, index, random)).join('\n') };
    case 'mixed_near_miss':
      return { form, text: [...lines, family.nearMiss(facts[count] ?? 'extra', count, random)].join('\n') };
    case 'crlf':
      return { form, text: lines.join('\r\n') };
    case 'indented':
      return { form, text: lines.map((line) => `  ${line}`).join('\n') };
    case 'full_width':
      return { form, text: fullWidthDigits(lines.join('\n')) };
    case 'arabic_digits':
      return { form, text: arabicIndicDigits(lines.join('\n')) };
    case 'blank_lines':
      return { form, text: lines.join('\n\n') };
    case 'prose':
      return { form, text: facts.slice(0, 3).join('; ') + '.' };
    case 'empty':
      return { form, text: '' };
    case 'whitespace':
      return { form, text: random.pick([' ', '\n\n', '\t\n \n']) };
    case 'truncated':
      return { form, text: truncate(lines.join('\n'), random.pick([0.3, 0.6, 0.9])) };
    case 'trailing_spaces':
      return { form, text: lines.map((line) => `${line}  `).join('\n') };
    default:
      return { form, text: lines.join('\n') };
  }
}

/** A minimum as upstream's data writes it (an int), or absent, zero, fractional or boolean. */
function minimum(random: Random): { value?: unknown; needed: number } {
  const roll = random.int(0, 99);
  if (roll < 6) return { needed: 1 };
  if (roll < 9) return { value: 0, needed: 0 };
  if (roll < 12) return { value: 2.5, needed: 3 };
  if (roll < 14) return { value: random.pick([true, false]), needed: 1 };
  const value = random.pick([1, 2, 3, 3, 3, 3, 4, 5]);
  return { value, needed: value };
}

function freeformCase(random: Random): { kind: string; detail: string; verifier: Record<string, unknown>; text: string } {
  const family = random.pick(FAMILIES);
  const extra = random.chance(0.15) ? [random.pick(FAMILIES).patterns[0] as string] : [];
  const { value, needed } = minimum(random);
  const type = random.chance(0.15) ? 'inline_prose' : 'regex';
  const verifier: Record<string, unknown> = { type, pattern_id: family.id, verify_regex: [...family.patterns, ...extra] };
  if (value !== undefined) verifier.verify_min_matches = value;
  if (random.chance(0.03)) delete verifier.verify_regex;
  const { form, text } = freeformText(random, family, Math.max(needed, 1));
  return { kind: `${type}/${form}`, detail: family.id, verifier, text };
}

// ---- citations ----

/** Upstream's nine reference styles (misc/breakdown_citation.py), each a marker for part N and a pattern for all. */
const STYLES: { name: string; marker: (part: number) => string; all: string; nearMiss: (part: number) => string[] }[] = [
  { name: '[ref:N]', marker: (part) => `[ref:${part}]`, all: '\\[ref:\\d+\\]', nearMiss: (part) => [`[ref: ${part}]`, `[Ref:${part}]`, `[ref:0${part}]`, `ref:${part}`, `[ref:${part}`] },
  { name: '<ref:N>', marker: (part) => `<ref:${part}>`, all: '<ref:\\d+>', nearMiss: (part) => [`<ref ${part}>`, `&lt;ref:${part}&gt;`, `<ref:${part}/>`] },
  { name: '{ref:N}', marker: (part) => `{ref:${part}}`, all: '\\{ref:\\d+\\}', nearMiss: (part) => [`{ ref:${part} }`, `{{ref:${part}}}`] },
  { name: '[source:N]', marker: (part) => `[source:${part}]`, all: '\\[source:\\d+\\]', nearMiss: (part) => [`[src:${part}]`, `[Source ${part}]`] },
  { name: '[web:N]', marker: (part) => `[web:${part}]`, all: '\\[web:\\d+\\]', nearMiss: (part) => [`[web${part}]`, `[WEB:${part}]`] },
  { name: '[N]', marker: (part) => `[${part}]`, all: '\\[\\d+\\]', nearMiss: (part) => [`[${part}, ${part + 1}]`, `(${part})`, `[^${part}]`] },
  { name: '<<N>>', marker: (part) => `<<${part}>>`, all: '<<\\d+>>', nearMiss: (part) => [`<${part}>`, `« ${part} »`] },
  { name: '(Part N)', marker: (part) => `(Part ${part})`, all: '\\(Part \\d+\\)', nearMiss: (part) => [`(part ${part})`, `(Part${part})`, `Part ${part}`] },
  { name: '(ref N)', marker: (part) => `(ref ${part})`, all: '\\(ref \\d+\\)', nearMiss: (part) => [`(ref. ${part})`, `(Ref ${part})`] },
];

/** Python's `re.escape` (3.7+): the characters that can mean something in a pattern get a backslash. */
const pythonEscape = (text: string) => text.replace(/[()[\]{}?*+\-|^$\\.&~# \t\n\r\v\f]/g, (char) => `\\${char}`);

function citationCase(random: Random): { kind: string; detail: string; verifier: Record<string, unknown>; text: string } {
  const style = random.pick(STYLES);
  const partCount = random.int(1, 12);
  const expectedParts = random.shuffled(Array.from({ length: partCount }, (_, index) => index + 1)).slice(0, random.int(1, Math.min(4, partCount)));
  const expected = expectedParts.map(style.marker);
  const others = Array.from({ length: partCount + 2 }, (_, index) => index + 1).filter((part) => !expectedParts.includes(part));
  const patternForm = random.pick(['escaped', 'escaped', 'escaped', 'style', 'style', 'none', 'null', 'empty', 'both']);
  const verifier: Record<string, unknown> = { type: 'string_match', expected_markers: expected };
  if (patternForm === 'escaped') verifier.patterns = expected.map(pythonEscape);
  if (patternForm === 'style') verifier.patterns = [style.all];
  if (patternForm === 'null') verifier.patterns = null;
  if (patternForm === 'empty') verifier.patterns = [];
  if (patternForm === 'both') verifier.patterns = [...expected.map(pythonEscape), style.all];
  if (random.chance(0.03)) delete verifier.expected_markers;

  const sentences = FACTS.slice(0, expected.length + 2);
  const cite = (markers: string[]) => sentences.map((sentence, index) => `${sentence}${markers[index] === undefined ? '' : ` ${markers[index]}`}.`).join(' ');
  const form = random.pick(['all', 'all', 'all', 'missing_one', 'extra', 'extra_only', 'near_miss', 'repeated', 'grouped', 'none', 'empty', 'whitespace', 'truncated', 'end_list', 'other_style']);
  const extra = style.marker(random.pick(others.length > 0 ? others : [99]));
  let text: string;
  switch (form) {
    case 'missing_one':
      text = cite(expected.slice(1));
      break;
    case 'extra':
      text = cite([...expected, extra]);
      break;
    case 'extra_only':
      text = cite([extra]);
      break;
    case 'near_miss':
      text = cite(expected.map((_, index) => random.pick(style.nearMiss(expectedParts[index] as number))));
      break;
    case 'repeated':
      text = `${cite(expected)} Again ${expected.join(' ')}.`;
      break;
    case 'grouped':
      text = `${sentences.join('. ')} ${expected.join('')}.`;
      break;
    case 'none':
      text = sentences.join('. ');
      break;
    case 'empty':
      text = '';
      break;
    case 'whitespace':
      text = ' \n ';
      break;
    case 'truncated':
      text = truncate(cite(expected), random.pick([0.4, 0.8, 0.95]));
      break;
    case 'end_list':
      text = `${sentences.join('. ')}.\n\nSources: ${expected.join(', ')}`;
      break;
    case 'other_style':
      text = cite(expectedParts.map((part) => random.pick(STYLES).marker(part)));
      break;
    default:
      text = cite(expected);
  }
  return { kind: `string_match/${form}`, detail: `${style.name} patterns:${patternForm}`, verifier, text };
}

// ---- rows both sides refuse ----

const MALFORMED: [string, unknown][] = [
  ['unknown_type', { type: 'json_schema', verify_regex: ['.'] }],
  ['empty_type', { type: '', verify_regex: ['.'] }],
  ['no_type', { verify_regex: ['^- .+'], verify_min_matches: 1 }],
  ['invalid_regex', { type: 'regex', verify_regex: ['^- .+', '(unclosed'] }],
  ['invalid_regex_bracket', { type: 'regex', verify_regex: ['[a-'] }],
  ['invalid_pattern', { type: 'string_match', expected_markers: ['[1]'], patterns: ['[1'] }],
  ['min_null', { type: 'regex', verify_regex: ['^- .+'], verify_min_matches: null }],
  ['min_string', { type: 'regex', verify_regex: ['^- .+'], verify_min_matches: '3' }],
  ['regex_null', { type: 'regex', verify_regex: null }],
  ['regex_number', { type: 'regex', verify_regex: [5] }],
  // A pattern written as a string: upstream compiles its characters one by one and fails on the `+`.
  ['regex_string', { type: 'regex', verify_regex: '^- .+' }],
  ['markers_numbers', { type: 'string_match', expected_markers: [1, 2] }],
  ['markers_null', { type: 'string_match', expected_markers: null }],
  ['verifier_list', ['regex', '^- .+']],
  ['verifier_null', null],
  ['no_verifier', undefined],
];

function malformedCase(random: Random): { kind: string; detail: string; verifier: unknown; text: string } {
  const [name, verifier] = random.pick(MALFORMED);
  return { kind: `malformed/${name}`, detail: 'both refuse', verifier, text: '- a\n- b\n- c [1]' };
}

/** The text as a response: one message mostly; cut across two messages, behind reasoning, or only a tool call. */
function answered(random: Random, text: string, index: number): { shape: string; output: ResponseItem[] } {
  const shape = random.pick(['message', 'message', 'message', 'message', 'message', 'message', 'split', 'reasoning_first', 'tool_call_only', 'text_parts']);
  if (shape === 'split') {
    const cut = random.int(0, text.length);
    return { shape, output: [textOutput(text.slice(0, cut), index), textOutput(text.slice(cut), index + 1)] };
  }
  if (shape === 'reasoning_first') {
    const reasoning = { id: `rs_parity_${index}`, type: 'reasoning', summary: [{ type: 'summary_text', text: '- a\n- b\n- c [ref:1]' }] } as unknown as ResponseItem;
    return { shape, output: [reasoning, textOutput(text, index)] };
  }
  if (shape === 'tool_call_only') return { shape, output: [callOutput('answer', { text }, index)] };
  if (shape === 'text_parts') {
    // One message in several output_text parts (and a refusal part, which is no text).
    const message = textOutput(text.slice(0, Math.floor(text.length / 2)), index) as unknown as { content: Record<string, unknown>[] };
    message.content.push({ type: 'refusal', refusal: '- refused [ref:1]' }, { type: 'output_text', text: text.slice(Math.floor(text.length / 2)), annotations: [] });
    return { shape, output: [message as unknown as ResponseItem] };
  }
  return { shape, output: [textOutput(text, index)] };
}

function generated(random: Random, index: number): ParityCase {
  const roll = random.int(0, 99);
  const made = roll < 3 ? malformedCase(random) : roll < 55 ? freeformCase(random) : citationCase(random);
  const { shape, output } = answered(random, made.text, index);
  const verify: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: `Format the answer as instructed (${made.detail}).` }] },
    agent_ref: made.kind.startsWith('string_match') ? CITATION_AGENT : FREEFORM_AGENT,
    response: response(output, index),
  };
  if (made.verifier !== undefined) verify.verifier = made.verifier;
  return { kind: made.kind, detail: `${made.detail} ${shape}`, verify };
}

export const formatVerification: ParityEnvironment = {
  name: 'format_verification',
  configs: { ngym: 'freeform_formatting.yaml', upstream: 'freeform_formatting.yaml' },
  fields: COMPUTED,
  generate(random, count) {
    const cases = [...upstreamRolloutCases('format_verification', COMPUTED), ...dataRows('format_verification', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
