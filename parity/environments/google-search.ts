/**
 * google_search: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then generated
 * multiple-choice answers as a search policy writes them: the right, a wrong or no option in a box, in the forms
 * models use (`\boxed{B}`, `\boxed{\text{B}}`, `\boxed{(B)}`, `\boxed{B: text}`, two boxes, a box across lines,
 * lower case, markdown, LaTeX display, unicode and quotes (upstream reads the repr of the content list), empty,
 * truncated), with tool calls and their outputs before the answer, a tool call or reasoning last, several content
 * parts, a refusal part, and a message whose content is a string. The search tools are not called: verify needs
 * no network.
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { ResponseItem } from '../../src/protocol/index.ts';
import type { SeededRandom as Random } from 'ngym';

const OPTIONS = ['1871', 'Lysozyme', "Fermat's little theorem", 'Ångström', '"quoted"', 'x^2 + 1', 'None of these', 'E. coli', '日本', 'C:\\path'];

function answerText(random: Random, letter: string, other: string, option: string): { form: string; text: string } {
  const forms: [string, string][] = [
    ['boxed', `Based on the search results, the answer is:\n\n\\boxed{${letter}}`],
    ['boxed_bare', `\\boxed{${letter}}`],
    ['boxed_text', `\\[\n\\boxed{\\text{${letter}}}\n\\]`],
    ['boxed_paren', `\\boxed{(${letter})}`],
    ['boxed_label', `\\boxed{${letter}: ${option}}`],
    ['boxed_space', `\\boxed{ ${letter} }`],
    ['boxed_lower', `\\boxed{${letter.toLowerCase()}}`],
    ['boxed_bold', `**Answer:** $\\boxed{${letter}}$`],
    ['boxed_two', `First I thought \\boxed{${other}}, but the sources say \\boxed{${letter}}.`],
    ['boxed_two_same_line_first', `\\boxed{${letter}} (not \\boxed{${other}})`],
    ['boxed_multiline', `\\boxed{\n${letter}\n}`],
    ['boxed_empty', `\\boxed{}`],
    ['boxed_unclosed', `The answer is \\boxed{${letter}`],
    ['boxed_quote', `The page says "${option}" and it's right: \\boxed{${letter}}`],
    ['boxed_apostrophe', `It's \\boxed{${letter}}, isn't it?`],
    ['boxed_unicode', `Réponse — ${option} ✓ \\boxed{${letter}}`],
    ['boxed_tab', `Answer:\t\\boxed{${letter}}\r\n`],
    ['boxed_backslash', `\\\\ \\boxed{${letter}} \\\\`],
    ['boxed_option_text', `\\boxed{${option}}`],
    // Python's repr escapes what str.isprintable() rejects (no-break and zero-width spaces, controls, U+2028).
    ['boxed_nbsp', `\\boxed{\u00a0${letter}}`],
    ['boxed_zero_width', `\\boxed{${letter}\u200b}`],
    ['boxed_line_separator', `Answer\u2028\\boxed{${letter}}`],
    ['boxed_control', `\u0007\\boxed{${letter}}\u007f`],
    ['boxed_emoji', `🔍 \\boxed{${letter}} ✅`],
    ['boxed_combining', `\\boxed{${letter}\u0301}`],
    ['fbox', `\\fbox{${letter}}`],
    ['answer_colon', `Answer: ${letter}`],
    ['markdown', `**${letter}**`],
    ['think_first', `<think>maybe \\boxed{${other}}</think>\n\\boxed{${letter}}`],
    ['empty', ''],
    ['whitespace', '  \n\t '],
    ['truncated', truncate(`After reading the sources, the answer is \\boxed{${letter}}`, random.pick([0.4, 0.8, 0.95]))],
  ];
  const [form, text] = random.pick(forms);
  return { form, text };
}

function toolTurns(random: Random, index: number): ResponseItem[] {
  const turns: ResponseItem[] = [];
  const count = random.int(0, 2);
  for (let turn = 0; turn < count; turn += 1) {
    const search = random.chance(0.6);
    turns.push(callOutput(search ? 'search' : 'browse', search ? { query: 'comet first observed' } : { url: 'https://example.org/page' }, index * 10 + turn));
    turns.push({ type: 'function_call_output', call_id: `call_parity_${index * 10 + turn}`, output: search ? '{"items": []}' : '{"page_content": "The answer is \\\\boxed{A}"}' } as ResponseItem);
  }
  return turns;
}

function generated(random: Random, index: number): ParityCase {
  const size = random.pick([4, 4, 4, 5, 10]);
  const letters = 'ABCDEFGHIJ'.slice(0, size).split('');
  const gold = random.pick(letters);
  const outcome = random.pick(['right', 'right', 'wrong']);
  const wrong = random.pick(letters.filter((letter) => letter !== gold));
  const said = outcome === 'right' ? gold : wrong;
  const option = random.pick(OPTIONS);
  const { form, text } = answerText(random, said, outcome === 'right' ? wrong : gold, option);
  const before = toolTurns(random, index);
  const shape = random.pick(['text', 'text', 'text', 'text', 'two_parts', 'refusal_part', 'string_content', 'tool_call_last', 'reasoning_last', 'two_messages', 'annotations']);
  let output: ResponseItem[];
  const message = textOutput(text, index);
  switch (shape) {
    case 'two_parts': {
      const cut = Math.floor(text.length / 2);
      output = [{ ...message, content: [{ type: 'output_text', text: text.slice(0, cut), annotations: [] }, { type: 'output_text', text: text.slice(cut), annotations: [] }] } as ResponseItem];
      break;
    }
    case 'refusal_part':
      output = [{ ...message, content: [{ type: 'refusal', refusal: "I can't help with \\boxed{Z}" }, ...(message as { content: unknown[] }).content] } as ResponseItem];
      break;
    case 'string_content':
      output = [{ type: 'message', role: 'assistant', content: text } as ResponseItem];
      break;
    case 'tool_call_last':
      output = [message, callOutput('search', { query: 'more' }, index)];
      break;
    case 'reasoning_last':
      output = [message, { type: 'reasoning', id: `rs_parity_${index}`, summary: [{ type: 'summary_text', text: `\\boxed{${said}}` }] } as ResponseItem];
      break;
    case 'two_messages':
      output = [textOutput(`\\boxed{${wrong}}`, index + 1), message];
      break;
    case 'annotations':
      output = [{ ...message, content: [{ type: 'output_text', text, annotations: [{ type: 'url_citation', url: 'https://example.org/it\'s', title: 'A "page"', start_index: 0, end_index: 1 }], logprobs: [] }] } as ResponseItem];
      break;
    default:
      output = [message];
  }
  const prompt = `Which one?\n${letters.map((letter, position) => `${letter}: ${OPTIONS[position % OPTIONS.length]}`).join('\n')}`;
  const expected = random.chance(0.05) ? random.pick([gold.toLowerCase(), `${gold} `, '']) : gold;
  return {
    kind: shape === 'text' ? form : `${shape}/${form}`,
    detail: `${outcome}, ${before.length / 2} tool turns`,
    verify: {
      responses_create_params: { input: [{ role: 'user', content: prompt }] },
      expected_answer: expected,
      task_difficulty_qwen3_32b_avg_8: random.pick([0, 0.125, 0.5, 1]),
      response: response([...before, ...output], index),
    },
  };
}

export const googleSearch: ParityEnvironment = {
  name: 'google_search',
  configs: { ngym: 'google_search.yaml', upstream: 'google_search.yaml' },
  // Upstream's start-up requires both keys (its verify never uses them); ngym's local index needs none.
  upstreamOverrides: { google_api_key: 'parity-dummy-key', google_cx: 'parity-dummy-cx' },
  fields: ['parsed_option'],
  // 0.7.0 declares parsed_option a string, so an answer without a box fails its own response model (500); ngym
  // scores it 0 with parsed_option null (docs/parity.md).
  knownCause: (ngym, upstream) =>
    upstream.status === 500 && String(upstream.body).includes('parsed_option') && ngym.status === 200 && (ngym.body as { parsed_option?: unknown }).parsed_option === null
      ? 'no box: 0.7.0 fails with 500 (parsed_option None is not a str), ngym scores 0'
      : undefined,
  generate(random, count) {
    // ngym's rows leave out task_difficulty_qwen3_32b_avg_8, which 0.7.0 requires (and never reads): added here.
    const ngymRollouts = dataRows('google_search', 'example_rollouts.jsonl').map((row) => rolloutCase({ task_difficulty_qwen3_32b_avg_8: 0.5, ...row }, ['parsed_option']));
    const cases = [...upstreamRolloutCases('google_search', ['parsed_option']), ...ngymRollouts];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index));
    return cases.slice(0, Math.max(count, 5));
  },
};
