/**
 * Small datasets in the schema of each benchmark's real sources, for the Hub stand-in (`hub`: repository ->
 * files) and the HTTPS stand-in (`web`: URL -> content), so each benchmark's own prepare.py runs its real download
 * path on them. Every question carries a marker `[[q<n>]]` so the scripted model can tell which task a prompt is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SeededRandom } from '../../src/util/seeded-random.ts';

type Files = Record<string, string | Buffer>;

/** How the scripted model writes an answer the benchmark's verifier reads. */
export type AnswerStyle = 'boxed' | 'answer-colon' | 'ifeval' | 'judged' | 'code';

interface StandInData {
  hub?: Record<string, Files>;
  web?: Record<string, string | Buffer>;
}

export interface BenchmarkCase {
  /** The benchmark's name (`gym list benchmarks`). */
  name: string;
  /** Its top-level folder under benchmarks/, copied whole (prepare scripts import their siblings). */
  folder: string;
  style: AnswerStyle;
  data: (random: SeededRandom) => StandInData;
}

const jsonl = (rows: readonly object[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join('');
const marker = (index: number) => `[[q${index}]]`;
let next = 0;
const question = (random: SeededRandom, topic: string) => `${marker(next++)} ${topic} ${random.int(2, 99)} + ${random.int(2, 99)}?`;

/**
 * A dataset card declaring configs and their splits (how the Hub names data files for `load_dataset`), and
 * optionally the columns that are strings (which `datasets` would otherwise read as dates when they look like one).
 */
function card(configs: Record<string, Record<string, string>>, stringColumns: readonly string[] = []): string {
  const lines = ['---', 'configs:'];
  for (const [name, splits] of Object.entries(configs)) {
    lines.push(`- config_name: ${name}`, '  data_files:');
    for (const [split, path] of Object.entries(splits)) lines.push(`  - split: ${split}`, `    path: ${path}`);
  }
  if (stringColumns.length > 0) {
    lines.push('dataset_info:');
    for (const name of Object.keys(configs)) lines.push(`- config_name: ${name}`, '  features:', ...stringColumns.flatMap((column) => [`  - name: ${column}`, '    dtype: string']));
  }
  return `${[...lines, '---', ''].join('\n')}\nA stand-in dataset.\n`;
}

/** The math competitions' shared source schema: `problem` and `answer` in a train split. */
function competition(repo: string, count = 3, numericAnswers = false): (random: SeededRandom) => StandInData {
  return (random) => ({
    hub: { [repo]: { 'data/train.jsonl': jsonl(Array.from({ length: count }, () => ({ problem: question(random, 'What is'), answer: numericAnswers ? random.int(1, 999) : String(random.int(1, 999)) }))) } },
  });
}

/** One split per language (the multilingual sets), declared in the card. */
function perLanguage(repo: string, languages: readonly string[], row: (random: SeededRandom, language: string) => object): (random: SeededRandom) => StandInData {
  return (random) => {
    const files: Files = { 'README.md': card({ default: Object.fromEntries(languages.map((language) => [language, `data/${language}.jsonl`])) }) };
    for (const language of languages) files[`data/${language}.jsonl`] = jsonl([row(random, language), row(random, language)]);
    return { hub: { [repo]: files } };
  };
}

const LETTERS = ['A', 'B', 'C', 'D'];
const options = (random: SeededRandom) => LETTERS.map((letter) => `option ${letter.toLowerCase()}${random.int(1, 9)}`);

const MMLU_SUBJECTS = ['abstract_algebra', 'anatomy', 'astronomy', 'business_ethics', 'clinical_knowledge', 'college_biology', 'college_chemistry', 'college_computer_science', 'college_mathematics', 'college_medicine', 'college_physics', 'computer_security', 'conceptual_physics', 'econometrics', 'electrical_engineering', 'elementary_mathematics', 'formal_logic', 'global_facts', 'high_school_biology', 'high_school_chemistry', 'high_school_computer_science', 'high_school_european_history', 'high_school_geography', 'high_school_government_and_politics', 'high_school_macroeconomics', 'high_school_mathematics', 'high_school_microeconomics', 'high_school_physics', 'high_school_psychology', 'high_school_statistics', 'high_school_us_history', 'high_school_world_history', 'human_aging', 'human_sexuality', 'international_law', 'jurisprudence', 'logical_fallacies', 'machine_learning', 'management', 'marketing', 'medical_genetics', 'miscellaneous', 'moral_disputes', 'moral_scenarios', 'nutrition', 'philosophy', 'prehistory', 'professional_accounting', 'professional_law', 'professional_medicine', 'professional_psychology', 'public_relations', 'security_studies', 'sociology', 'us_foreign_policy', 'virology', 'world_religions'];
const MMMLU_LANGUAGES = ['AR-XY', 'BN-BD', 'DE-DE', 'ES-LA', 'FR-FR', 'HI-IN', 'ID-ID', 'IT-IT', 'JA-JP', 'KO-KR', 'PT-BR', 'ZH-CN', 'SW-KE', 'YO-NG'];
const X_LANGUAGES = ['de', 'es', 'fr', 'ja'];

/** A CSV field, quoted as Python's csv writer does when needed. */
const csvField = (value: string) => (/[",\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);
const csv = (rows: readonly string[][]) => rows.map((row) => row.map(csvField).join(',')).join('\n') + '\n';

/** MMLU's tarball: data/test/<subject>_test.csv, made with the tar command. */
function mmluTar(random: SeededRandom): Buffer {
  const directory = mkdtempSync(join(tmpdir(), 'ngym-mmlu-'));
  try {
    for (const subject of ['abstract_algebra', 'anatomy', 'virology']) {
      const path = join(directory, 'data', 'test', `${subject}_test.csv`);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, csv([0, 1].map(() => [question(random, `(${subject}) Which is`), ...options(random), random.pick(LETTERS)])));
    }
    execFileSync('tar', ['-cf', join(directory, 'data.tar'), '-C', directory, 'data']);
    return readFileSync(join(directory, 'data.tar'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const IFEVAL_INSTRUCTIONS: [string, Record<string, unknown>][] = [
  ['change_case:english_lowercase', {}],
  ['punctuation:no_comma', {}],
  ['length_constraints:number_words', { relation: 'less than', num_words: 40 }],
  ['detectable_format:title', {}],
  ['startend:end_checker', { end_phrase: 'Is there anything else I can help with?' }],
];

/** LiveCodeBench's raw set: one config per release, test cases as JSON (public) in the row; answers are sums. */
function liveCodeBench(random: SeededRandom): StandInData {
  const columns = ['question_title', 'question_content', 'platform', 'question_id', 'contest_id', 'contest_date', 'starter_code', 'difficulty', 'public_test_cases', 'private_test_cases', 'metadata'];
  const release = (date: string) =>
    jsonl(
      Array.from({ length: 3 }, (_, index) => {
        const [a, b] = [random.int(1, 50), random.int(1, 50)];
        return {
          question_title: `sum ${index}`,
          question_content: `${question(random, 'Read two integers and print their sum, e.g.')}`,
          platform: 'atcoder',
          question_id: `abc${random.int(100, 999)}_${index}`,
          contest_id: 'abc',
          contest_date: date,
          starter_code: '',
          difficulty: 'easy',
          public_test_cases: JSON.stringify([{ input: `${a} ${b}\n`, output: `${a + b}\n`, testtype: 'stdin' }]),
          private_test_cases: '',
          metadata: '{}',
        };
      }),
    );
  return {
    hub: {
      'livecodebench/code_generation_lite': {
        'README.md': card({ release_v5: { test: 'release_v5/test.jsonl' }, release_v6: { test: 'release_v6/test.jsonl' } }, columns),
        'release_v5/test.jsonl': release('2024-10-01T00:00:00'),
        'release_v6/test.jsonl': release('2025-04-01T00:00:00'),
      },
    },
  };
}

/** HLE's test split: text questions and one with an image (which the text benchmark leaves out, the vision one keeps). */
function hle(random: SeededRandom): StandInData {
  return {
    hub: {
      'cais/hle': {
        'data/test.jsonl': jsonl([
          ...Array.from({ length: 3 }, (_, index) => ({ id: `hle${index}`, question: question(random, 'Name the'), image: '', answer: `term ${random.int(1, 9)}`, answer_type: 'exactMatch', category: 'Other' })),
          { id: 'hle-image', question: question(random, 'Describe the picture'), image: 'data:image/png;base64,AAAA', answer: 'a cat', answer_type: 'exactMatch', category: 'Other' },
        ]),
      },
    },
  };
}

/** HLE-Verified: its classes (the uncertain one is left out) and metadata packed in a JSON column. */
function hleVerified(random: SeededRandom): StandInData {
  return {
    hub: {
      'skylenage/HLE-Verified': {
        'data/train.jsonl': jsonl(
          ['Gold subset', 'Revision subset', 'Uncertain subset', 'Gold subset'].map((verified, index) => ({
            id: `hv${index}`,
            question: question(random, 'Which theorem'),
            answer: `theorem ${random.int(1, 9)}`,
            Verified_Classes: verified,
            category: 'Math',
            raw_subject: 'Algebra',
            json: JSON.stringify({ answer_type: 'exactMatch', image: '' }),
          })),
        ),
      },
    },
  };
}

export const BENCHMARK_CASES: BenchmarkCase[] = [
  { name: 'aime24', folder: 'aime24', style: 'boxed', data: competition('HuggingFaceH4/aime_2024') },
  { name: 'aime25', folder: 'aime25', style: 'boxed', data: competition('MathArena/aime_2025', 3, true) },
  { name: 'aime26', folder: 'aime26', style: 'boxed', data: competition('MathArena/aime_2026', 3, true) },
  { name: 'apex25', folder: 'apex25', style: 'boxed', data: competition('MathArena/apex_2025') },
  { name: 'apex_shortlist', folder: 'apex_shortlist', style: 'boxed', data: competition('MathArena/apex-shortlist') },
  { name: 'arxivmath_0526', folder: 'arxivmath_0526', style: 'boxed', data: competition('MathArena/arxivmath-0526') },
  { name: 'arxivmath_0626', folder: 'arxivmath_0626', style: 'boxed', data: competition('MathArena/arxivmath-0626') },
  { name: 'arxivmath_0626/config_with_system', folder: 'arxivmath_0626', style: 'boxed', data: competition('MathArena/arxivmath-0626') },
  { name: 'hmmt_feb25', folder: 'hmmt_feb25', style: 'boxed', data: competition('MathArena/hmmt_feb_2025') },
  { name: 'hmmt_nov25', folder: 'hmmt_nov25', style: 'boxed', data: competition('MathArena/hmmt_nov_2025') },
  {
    name: 'aime24-x',
    folder: 'aime24-x',
    style: 'boxed',
    data: perLanguage('nvidia/Nemotron-Multilinugual-Eval-AIME24', X_LANGUAGES, (random) => ({ problem: question(random, 'Was ist'), expected_answer: random.int(1, 999) })),
  },
  {
    name: 'aime25-x',
    folder: 'aime25-x',
    style: 'boxed',
    data: perLanguage('nvidia/Nemotron-Multilinugual-Eval-AIME25', X_LANGUAGES, (random) => ({ problem: question(random, 'Qu est'), expected_answer: String(random.int(1, 999)) })),
  },
  {
    name: 'hendrycks_math',
    folder: 'hendrycks_math',
    style: 'boxed',
    data: (random) => ({
      web: { 'https://raw.githubusercontent.com/QwenLM/Qwen2.5-Math/refs/heads/main/evaluation/data/math/test.jsonl': jsonl(Array.from({ length: 3 }, () => ({ problem: question(random, 'Compute'), answer: `\\frac{${random.int(1, 9)}}{${random.int(11, 19)}}`, level: 'Level 3', type: 'Algebra' }))) },
    }),
  },
  {
    name: 'math-500',
    folder: 'math-500',
    style: 'boxed',
    data: (random) => ({
      web: {
        'https://github.com/openai/prm800k/raw/main/prm800k/math_splits/test.jsonl': jsonl(
          Array.from({ length: 3 }, (_, index) => ({ problem: question(random, 'Evaluate'), answer: String(random.int(1, 99)), solution: 'By arithmetic.', subject: 'Algebra', level: 2, unique_id: `test/algebra/${index}.json` })),
        ),
      },
    }),
  },
  {
    name: 'gpqa',
    folder: 'gpqa',
    style: 'answer-colon',
    data: (random) => ({
      hub: {
        'Idavidrein/gpqa': {
          'README.md': card({ gpqa_diamond: { train: 'gpqa_diamond/train.jsonl' } }),
          'gpqa_diamond/train.jsonl': jsonl(Array.from({ length: 3 }, () => ({ Question: question(random, 'Which particle has'), 'Correct Answer': `right ${random.int(1, 9)}`, 'Incorrect Answer 1': 'wrong one', 'Incorrect Answer 2': 'wrong two', 'Incorrect Answer 3': 'wrong three' }))),
        },
      },
    }),
  },
  {
    name: 'gpqa-x',
    folder: 'gpqa-x',
    style: 'boxed',
    data: perLanguage('nvidia/Nemotron-Multilinugual-Eval-GPQA', X_LANGUAGES, (random) => {
      const [a, b, c, d] = options(random) as [string, string, string, string];
      return { problem: question(random, 'Welches Teilchen'), options: `A) ${a}\nB) ${b}\nC) ${c}\nD) ${d}`, expected_answer: random.pick(LETTERS), A: a, B: b, C: c, D: d };
    }),
  },
  {
    name: 'global-piqa',
    folder: 'global-piqa',
    style: 'answer-colon',
    data: (random) => {
      const languages = ['eng_latn', 'fra_latn'];
      const files: Files = { 'README.md': card(Object.fromEntries(languages.map((language) => [language, { test: `${language}/test.jsonl` }]))) };
      for (const language of languages) files[`${language}/test.jsonl`] = jsonl([0, 1].map(() => ({ prompt: question(random, 'To open a jar,'), solution0: 'twist the lid', solution1: 'freeze it', label: random.int(0, 1) })));
      return { hub: { 'mrlbenchmarks/global-piqa-nonparallel': files } };
    },
  },
  {
    name: 'mmlu_pro',
    folder: 'mmlu_pro',
    style: 'answer-colon',
    data: (random) => ({
      hub: {
        'TIGER-Lab/MMLU-Pro': {
          'data/test.jsonl': jsonl(Array.from({ length: 3 }, (_, index) => ({ question_id: index, question: `${question(random, 'Which law')}\n`, options: Array.from({ length: 10 }, (_, option) => `choice ${option}`), answer: random.pick(['A', 'C', 'J']), answer_index: 0, cot_content: '', category: 'physics', src: 'stand-in' }))),
        },
      },
    }),
  },
  {
    name: 'mmlu-redux',
    folder: 'mmlu-redux',
    style: 'boxed',
    data: (random) => {
      const files: Files = { 'README.md': card(Object.fromEntries(MMLU_SUBJECTS.map((subject) => [subject, { test: `${subject}/test.jsonl` }]))) };
      MMLU_SUBJECTS.forEach((subject, index) => {
        // Most subjects' only row is one MMLU-Redux flags as bad, which prepare.py drops; three are kept.
        const kept = index % 19 === 0;
        files[`${subject}/test.jsonl`] = jsonl([{ question: question(random, `(${subject}) Which is`), choices: options(random), answer: random.int(0, 3), error_type: kept ? 'ok' : 'bad_question_clarity', source: 'stand-in', correct_answer: null, potential_reason: '' }]);
      });
      return { hub: { 'edinburgh-dawg/mmlu-redux-2.0': files } };
    },
  },
  {
    name: 'supergpqa',
    folder: 'supergpqa',
    style: 'answer-colon',
    data: (random) => ({
      hub: {
        'm-a-p/SuperGPQA': {
          'train.jsonl': jsonl(Array.from({ length: 3 }, (_, index) => ({ uuid: `u${index}`, question: question(random, 'Which enzyme'), options: ['alpha', 'beta', 'gamma', 'delta', 'epsilon'], answer: 'beta', answer_letter: 'B', discipline: 'Science', field: 'Biology', subfield: 'Biochemistry', difficulty: 'easy', is_calculation: false }))),
        },
      },
    }),
  },
  { name: 'mmlu', folder: 'mmlu', style: 'boxed', data: (random) => ({ web: { 'https://people.eecs.berkeley.edu/~hendrycks/data.tar': mmluTar(random) } }) },
  {
    name: 'mmmlu',
    folder: 'mmmlu',
    style: 'answer-colon',
    data: (random) => ({
      web: Object.fromEntries(
        MMMLU_LANGUAGES.map((language) => [
          `https://openaipublic.blob.core.windows.net/simple-evals/mmlu_${language}.csv`,
          csv([['', 'Question', 'A', 'B', 'C', 'D', 'Answer', 'Subject'], ['0', question(random, 'Quelle est'), ...options(random), random.pick(LETTERS), 'anatomy']]),
        ]),
      ),
    }),
  },
  { name: 'hle', folder: 'hle', style: 'judged', data: hle },
  { name: 'hle/config_vision', folder: 'hle', style: 'judged', data: hle },
  { name: 'hle_verified', folder: 'hle_verified', style: 'judged', data: hleVerified },
  { name: 'hle_verified/config_vision', folder: 'hle_verified', style: 'judged', data: hleVerified },
  { name: 'livecodebench/v5_2408_2502/config', folder: 'livecodebench', style: 'code', data: liveCodeBench },
  { name: 'livecodebench/v5_2408_2502/cascade', folder: 'livecodebench', style: 'code', data: liveCodeBench },
  { name: 'livecodebench/v6_2408_2505/config', folder: 'livecodebench', style: 'code', data: liveCodeBench },
  { name: 'livecodebench/v6_2408_2505/cascade', folder: 'livecodebench', style: 'code', data: liveCodeBench },
  {
    name: 'ifeval',
    folder: 'ifeval',
    style: 'ifeval',
    data: () => ({
      web: {
        'https://raw.githubusercontent.com/google-research/google-research/master/instruction_following_eval/data/input_data.jsonl': jsonl(
          IFEVAL_INSTRUCTIONS.map(([instruction, kwargs], index) => ({ key: 1000 + index, prompt: `${marker(next++)} Write a short note about tea.`, instruction_id_list: [instruction], kwargs: [kwargs] })),
        ),
      },
    }),
  },
];
