/**
 * nvarc: upstream 0.7.0's example rollouts (joined to their rows) and ngym's, then generated ARC-style tasks (mirror,
 * flip, transpose, rotate, recolor, double width; grids of 1-6 rows and columns) answered in both modes.
 *
 * Transductive answers: the grid right, one cell off, transposed, ragged, cut short; boxed (plainly, across lines,
 * twice, empty, unclosed, LaTeX matrix), plain rows, after a `<think>` block (or an unclosed one), as JSON lists, with
 * commas, without spaces, with row labels, color names, numbers over 9, Arabic or full-width digits, tabs, `\r\n`,
 * Unicode spaces, a Markdown table, a code fence; split over two messages, after reasoning, beside a refusal, a tool
 * call only, empty. Inductive answers: programs right (plain Python, numpy, numpy floats or bools, tuples, digit
 * strings, scipy) or wrong, failing (an exception, a syntax error, no transform, two parameters, a class statement,
 * refused imports and builtins, a missing module, `sys.exit`, output past the runner's capture, a loop past the time
 * limit), returning no grid (None, ragged, empty, fractions, NaN, a dict, text, a flat list); fenced ```python, bare
 * ```, unfenced, two blocks, inside `<think>`, ```py, unclosed. Rows name their mode or not (or another one), carry
 * grids pydantic coerces (bools, digit strings) or refuses, or no expected grid. The servers' time limit is 2 s here.
 */
import { type ParityCase, callOutput, dataRows, response, rolloutCase, textOutput, truncate, upstreamRolloutCases } from '../cases.ts';
import type { ParityEnvironment } from '../environment.ts';
import type { ResponseItem } from '../../src/protocol/index.ts';
import type { SeededRandom as Random } from 'ngym';

type Grid = number[][];

interface Rule {
  name: string;
  apply(grid: Grid): Grid;
  /** Right programs, by kind. */
  programs: Record<string, string>;
}

const transpose = (grid: Grid): Grid => (grid[0] ?? []).map((_, column) => grid.map((row) => row[column] as number));

const RULES: Rule[] = [
  {
    name: 'mirror',
    apply: (grid) => grid.map((row) => [...row].reverse()),
    programs: {
      plain: 'def transform(grid):\n    return [row[::-1] for row in grid]',
      numpy: 'import numpy as np\n\ndef transform(grid):\n    return np.fliplr(np.array(grid))',
      numpy_float: 'import numpy as np\n\ndef transform(grid):\n    return np.fliplr(np.array(grid, dtype=float)).tolist()',
      tuples: 'def transform(grid):\n    return tuple(tuple(reversed(row)) for row in grid)',
      strings: 'def transform(grid):\n    return [[str(cell) for cell in row[::-1]] for row in grid]',
    },
  },
  {
    name: 'flip',
    apply: (grid) => [...grid].reverse(),
    programs: {
      plain: 'def transform(grid):\n    return grid[::-1]',
      numpy: 'import numpy as np\n\ndef transform(grid):\n    return np.flipud(np.array(grid)).tolist()',
      mutate: 'def transform(grid):\n    grid.reverse()\n    return grid',
    },
  },
  {
    name: 'transpose',
    apply: transpose,
    programs: {
      plain: 'def transform(grid):\n    return [list(column) for column in zip(*grid)]',
      numpy: 'import numpy as np\n\ndef transform(grid):\n    return np.array(grid).T',
      scipy: 'import numpy as np\nfrom scipy import ndimage\n\ndef transform(grid):\n    labels, count = ndimage.label(np.array(grid) > 0)\n    return np.array(grid).T.tolist()',
    },
  },
  {
    name: 'rotate',
    apply: (grid) => transpose([...grid].reverse()),
    programs: {
      plain: 'def transform(grid):\n    return [list(row) for row in zip(*grid[::-1])]',
      numpy: 'import numpy as np\n\ndef transform(grid):\n    return np.rot90(np.array(grid), -1)',
    },
  },
  {
    name: 'recolor',
    apply: (grid) => grid.map((row) => row.map((cell) => (cell === 1 ? 2 : cell))),
    programs: {
      plain: 'def transform(grid):\n    return [[2 if cell == 1 else cell for cell in row] for row in grid]',
      numpy: 'import numpy as np\n\ndef transform(grid):\n    a = np.array(grid)\n    a[a == 1] = 2\n    return a',
      itertools: 'import itertools\nfrom collections import Counter\n\ndef transform(grid):\n    Counter(itertools.chain(*grid))\n    return [[2 if cell == 1 else cell for cell in row] for row in grid]',
    },
  },
  {
    name: 'double',
    apply: (grid) => grid.map((row) => row.flatMap((cell) => [cell, cell])),
    programs: {
      plain: 'def transform(grid):\n    return [[cell for cell in row for _ in range(2)] for row in grid]',
      numpy: 'import numpy as np\n\ndef transform(grid):\n    return np.repeat(np.array(grid), 2, axis=1).tolist()',
    },
  },
];

/** Programs that give no grid, or not the right one; `{rule}` is replaced by the rule's plain body. */
const FAILING_PROGRAMS: Record<string, string> = {
  wrong_identity: 'def transform(grid):\n    return grid',
  wrong_zeros: 'def transform(grid):\n    return [[0 for cell in row] for row in grid]',
  exception: 'def transform(grid):\n    return grid[99]',
  syntax_error: 'def transform(grid):\n    return [row[::-1] for row in grid',
  no_transform: 'def solve(grid):\n    return grid',
  two_parameters: 'def transform(grid, extra):\n    return grid',
  class_statement: 'class Rule:\n    pass\n\n{rule}',
  import_os: 'import os\n\n{rule}',
  from_subprocess: 'from subprocess import run\n\n{rule}',
  open_builtin: '{rule}\n\nopen("notes.txt", "w")',
  dir_builtin: 'def transform(grid):\n    dir()\n    return grid',
  import_torch: 'import torch\n\n{rule}',
  sys_exit: 'import sys\n\ndef transform(grid):\n    sys.exit(0)',
  exit_builtin: 'def transform(grid):\n    exit()',
  stdout_noise: 'import sys\nsys.__stdout__.write("debug\\n")\n\n{rule}',
  print_is_captured: 'print("thinking out loud")\n\n{rule}',
  returns_none: 'def transform(grid):\n    return None',
  returns_ragged: 'def transform(grid):\n    return [[1, 2], [3]]',
  returns_empty: 'def transform(grid):\n    return []',
  returns_empty_row: 'def transform(grid):\n    return [[]]',
  returns_fraction: 'def transform(grid):\n    return [[0.5 for cell in row] for row in grid]',
  returns_nan: 'def transform(grid):\n    return [[float("nan")]]',
  returns_dict: 'def transform(grid):\n    return {"grid": grid}',
  returns_text: 'def transform(grid):\n    return "0 1\\n1 0"',
  returns_flat: 'def transform(grid):\n    return [cell for row in grid for cell in row]',
  returns_bools: 'def transform(grid):\n    return [[cell > 0 for cell in row] for row in grid]',
  returns_set: 'def transform(grid):\n    return [set(row) for row in grid]',
  recursion: 'def transform(grid):\n    return transform(grid)',
};
/** Rarer: they cost the servers' whole time limit. */
const SLOW_PROGRAMS: Record<string, string> = {
  loop: 'def transform(grid):\n    while True:\n        pass',
  sleep: 'import time\n\ndef transform(grid):\n    time.sleep(10)\n    return grid',
};

const rowsOf = (grid: readonly (number | string)[][], cell = ' ', row = '\n') => grid.map((line) => line.join(cell)).join(row);

function randomGrid(random: Random, rows = random.int(1, 6), columns = random.int(1, 6)): Grid {
  const palette = random.chance(0.3) ? [0, 1] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
  return Array.from({ length: rows }, () => Array.from({ length: columns }, () => random.pick(palette)));
}

/** The grid with one cell changed. */
function offByOne(random: Random, grid: Grid): Grid {
  const copy = grid.map((row) => [...row]);
  const row = copy[random.int(0, copy.length - 1)] as number[];
  const column = random.int(0, row.length - 1);
  row[column] = ((row[column] as number) + 1) % 10;
  return copy;
}

const COLOR_NAMES = ['black', 'blue', 'red', 'green', 'yellow', 'gray', 'magenta', 'orange', 'cyan', 'brown'];

/** A grid written the ways models write one. */
function gridText(random: Random, right: Grid, wrong: Grid): { form: string; text: string } {
  const grid = random.chance(0.7) ? right : wrong;
  // One more row, of another length than the first.
  const ragged = [...grid, (grid[0] as number[]).length > 1 ? [0] : [0, 0]];
  const forms: [string, string][] = [
    ['boxed', `The rule is clear.\n\n\\boxed{${rowsOf(grid)}}`],
    ['boxed_lines', `\\boxed{\n${rowsOf(grid)}\n}`],
    ['boxed_leading_space', ` \\boxed{${rowsOf(grid)}}`],
    ['plain_rows', rowsOf(grid)],
    ['think_then_box', `<think>Try ${rowsOf(wrong, ' ', ' / ')} first.</think>\n\\boxed{${rowsOf(grid)}}`],
    ['think_unclosed', `<think>Maybe \\boxed{${rowsOf(wrong)}}\nthen ${rowsOf(grid)}`],
    ['two_boxes', `\\boxed{${rowsOf(wrong)}} no wait \\boxed{${rowsOf(grid)}}`],
    ['box_then_text', `\\boxed{${rowsOf(grid)}} (each row mirrored)`],
    ['boxed_empty', '\\boxed{}'],
    ['boxed_unclosed', `\\boxed{${rowsOf(grid)}`],
    ['boxed_matrix', `\\boxed{\\begin{matrix} ${rowsOf(grid, ' & ', ' \\\\ ')} \\end{matrix}}`],
    ['json', `\\boxed{${JSON.stringify(grid)}}`],
    ['json_spaced', `\\boxed{[${grid.map((row) => `[${row.join(', ')}]`).join(', ')}]}`],
    ['json_rows', grid.map((row) => `[${row.join(', ')}]`).join('\n')],
    ['commas', rowsOf(grid, ', ')],
    ['commas_tight', rowsOf(grid, ',')],
    ['no_spaces', `\\boxed{${rowsOf(grid, '')}}`],
    ['row_labels', grid.map((row, index) => `Row ${index + 1}: ${row.join(' ')}`).join('\n')],
    ['color_names', `\\boxed{${grid.map((row) => row.map((cell) => COLOR_NAMES[cell]).join(' ')).join('\n')}}`],
    ['over_nine', `\\boxed{${rowsOf(grid.map((row) => row.map((cell, index) => (index === 0 ? cell + 10 : cell))))}}`],
    ['arabic_digits', `\\boxed{${rowsOf(grid.map((row) => row.map((cell) => String.fromCharCode(0x660 + cell))))}}`],
    ['fullwidth_digits', rowsOf(grid.map((row) => row.map((cell) => String.fromCharCode(0xff10 + cell))))],
    ['tabs', rowsOf(grid, '\t')],
    ['crlf', rowsOf(grid, ' ', '\r\n')],
    ['unicode_spaces', rowsOf(grid, random.pick(['\u00a0', '\u2003', '\u3000', '\u001f', '\u0085']), random.pick(['\n', '\u2028', '\u000b']))],
    ['markdown_table', grid.map((row) => `| ${row.join(' | ')} |`).join('\n')],
    ['code_fence', `\`\`\`\n${rowsOf(grid)}\n\`\`\``],
    ['transposed', `\\boxed{${rowsOf(transpose(grid))}}`],
    ['ragged', `\\boxed{${rowsOf(ragged)}}`],
    ['truncated', truncate(`\\boxed{${rowsOf(grid)}}`, random.pick([0.4, 0.8, 0.95]))],
    ['words_only', 'I cannot find the rule.'],
    ['empty', ''],
    ['whitespace', ' \n\t '],
  ];
  const [form, text] = random.pick(forms);
  return { form: `${form}${grid === right ? '' : ':wrong'}`, text };
}

/** A program written the ways models write one. */
function programText(random: Random, rule: Rule): { form: string; text: string } {
  const roll = random.int(0, 99);
  let kind: string;
  let program: string;
  if (roll < 45) {
    kind = random.pick(Object.keys(rule.programs));
    program = rule.programs[kind] as string;
  } else if (roll < 98) {
    kind = random.pick(Object.keys(FAILING_PROGRAMS));
    program = (FAILING_PROGRAMS[kind] as string).replace('{rule}', rule.programs.plain as string);
  } else {
    kind = random.pick(Object.keys(SLOW_PROGRAMS));
    program = SLOW_PROGRAMS[kind] as string;
  }
  const wrong = FAILING_PROGRAMS.wrong_identity as string;
  const fences: [string, string][] = [
    ['python', `The rule:\n\n\`\`\`python\n${program}\n\`\`\``],
    ['python', `\`\`\`python\n${program}\n\`\`\`\nThis mirrors the grid.`],
    ['python_spaces', `\`\`\`python   \n\n${program}\n\`\`\``],
    ['bare', `\`\`\`\n${program}\n\`\`\``],
    ['unfenced', program],
    ['two_blocks', `\`\`\`python\n${wrong}\n\`\`\`\nBetter:\n\`\`\`python\n${program}\n\`\`\``],
    ['python_then_bare', `\`\`\`python\n${program}\n\`\`\`\n\`\`\`\n${wrong}\n\`\`\``],
    ['inside_think', `<think>\`\`\`python\n${wrong}\n\`\`\`</think>\n\`\`\`python\n${program}\n\`\`\``],
    ['only_in_think', `<think>\`\`\`python\n${program}\n\`\`\`</think>The program is above.`],
    ['py_fence', `\`\`\`py\n${program}\n\`\`\``],
    ['same_line_fence', `\`\`\`python ${program}\`\`\``],
    ['unclosed', `\`\`\`python\n${program}`],
    ['no_code', 'I would mirror every row.'],
  ];
  const [fence, text] = random.pick(fences);
  return { form: `${kind}/${fence}`, text };
}

/** The row's expected grid as sent: plain, or in a form pydantic coerces (bools, digit strings), refuses, or absent. */
function expectedForm(random: Random, expected: Grid): { form: string; value: unknown } {
  const roll = random.int(0, 99);
  if (roll < 88) return { form: 'plain', value: expected };
  if (roll < 91) return { form: 'digit_strings', value: expected.map((row) => row.map((cell) => random.pick([String(cell), ` ${cell} `, `${cell}.0`]))) };
  if (roll < 93 && expected.every((row) => row.every((cell) => cell <= 1))) return { form: 'bools', value: expected.map((row) => row.map((cell) => cell === 1)) };
  if (roll < 96) return { form: 'missing', value: undefined };
  return { form: 'refused', value: random.pick([[[0, 'x']], [[1.5]], [1, 2], 'rows', [[null]], null]) };
}

function task(random: Random, index: number, rule: Rule) {
  const trainInput = randomGrid(random);
  const testInput = randomGrid(random);
  const expected = rule.apply(testInput);
  const row: Record<string, unknown> = {
    responses_create_params: { input: [{ role: 'user', content: `Puzzle ${index} (${rule.name}).\nInput:\n${rowsOf(trainInput)}\nOutput:\n${rowsOf(rule.apply(trainInput))}\n\nTest input:\n${rowsOf(testInput)}` }] },
    train: [{ input: trainInput, output: rule.apply(trainInput) }],
    test_input: testInput,
    task_id: random.chance(0.02) ? index : `parity_${index}`,
  };
  return { row, expected, testInput };
}

/**
 * The answer's items: one message mostly; the text split over two (at its first line break), after a reasoning item,
 * beside a refusal part, or a tool call only. terminus_judge's cases use it too.
 */
export function outputItems(random: Random, text: string, index: number): { shape: string; output: ResponseItem[] } {
  const shape = random.pick(['message', 'message', 'message', 'message', 'two_messages', 'reasoning_first', 'refusal_part', 'tool_call_only']);
  if (shape === 'two_messages') {
    // Split at the first line break, which the join puts back; without one, in the middle (the join adds one).
    const newline = text.indexOf('\n');
    const [first, second] = newline >= 0 ? [text.slice(0, newline), text.slice(newline + 1)] : [text.slice(0, text.length >> 1), text.slice(text.length >> 1)];
    return { shape, output: [textOutput(first, index), textOutput(second, index + 1)] };
  }
  if (shape === 'reasoning_first') {
    const reasoning = { id: `rs_parity_${index}`, type: 'reasoning', summary: [{ type: 'summary_text', text: '\\boxed{0 0}' }] } as unknown as ResponseItem;
    return { shape, output: [reasoning, textOutput(text, index)] };
  }
  if (shape === 'refusal_part') {
    const message = textOutput(text, index) as unknown as { content: unknown[] };
    message.content.push({ type: 'refusal', refusal: '\\boxed{9 9}' });
    return { shape, output: [message as unknown as ResponseItem] };
  }
  if (shape === 'tool_call_only') return { shape, output: [callOutput('submit_answer', { answer: text }, index)] };
  return { shape, output: [textOutput(text, index)] };
}

function generated(random: Random, index: number, serverMode: 'transductive' | 'inductive'): ParityCase {
  const rule = random.pick(RULES);
  const { row, expected } = task(random, index, rule);
  // Mostly the server's own mode; some rows name the other one (or a mode that is neither, read as transductive).
  const rowMode = random.pick<string | null | undefined>([undefined, undefined, undefined, undefined, serverMode, '', null, serverMode === 'inductive' ? 'transductive' : 'inductive', 'Inductive']);
  if (rowMode !== undefined) row.agent_mode = rowMode;
  const mode = rowMode || serverMode;
  const { form, text } = mode === 'inductive' ? programText(random, rule) : gridText(random, expected, offByOne(random, expected));
  const expectedField = expectedForm(random, expected);
  if (expectedField.value !== undefined) row.expected_output = expectedField.value;
  const { shape, output } = outputItems(random, text, index);
  return {
    kind: `${mode === 'inductive' ? 'program' : 'grid'}/${form.split(':')[0]?.split('/')[0]}`,
    detail: `${rule.name} ${form} row_mode=${String(rowMode)} expected=${expectedField.form} ${shape}`,
    verify: { ...row, response: response(output, index) },
  };
}

/** What verify adds (the row's expected_output and agent_mode stay in the case). */
const COMPUTED = ['predicted_output', 'extraction_successful', 'exact_match'];

function generator(serverMode: 'transductive' | 'inductive') {
  return (random: Random, count: number): ParityCase[] => {
    const cases = [...upstreamRolloutCases('nvarc', COMPUTED), ...dataRows('nvarc', 'example_rollouts.jsonl').map((row) => rolloutCase(row, COMPUTED))];
    for (let index = cases.length; index < count; index += 1) cases.push(generated(random, index, serverMode));
    return cases.slice(0, Math.max(count, 5));
  };
}

export const nvarc: ParityEnvironment = {
  name: 'nvarc',
  configs: { ngym: 'transductive.yaml', upstream: 'transductive.yaml' },
  overrides: { python_timeout_seconds: 2 },
  fields: ['predicted_output', 'extraction_successful', 'exact_match', 'agent_mode', 'expected_output'],
  generate: generator('transductive'),
};

export const nvarcInductive: ParityEnvironment = {
  ...nvarc,
  instance: 'nvarc_inductive',
  configs: { ngym: 'inductive.yaml', upstream: 'inductive.yaml' },
  generate: generator('inductive'),
};
