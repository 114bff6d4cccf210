/**
 * Prompt configs applied to rows: the rendering rules (Python's `str.format_map`), the errors naming the field, the
 * collector's task source applying one as it reads rows, and the rendering of every prompt config upstream's
 * benchmarks use against upstream 0.7.0's own `apply_prompt_to_row` (one call of the venv's Python).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { upstreamWheel } from '../testing/upstream-wheel.ts';
import { applyPrompt, fillPrompt, PromptRowError, readPromptConfig } from './prompt-config.ts';
import { readTasks, type InvalidInput } from './task-source.ts';

const dir = () => mkdtempSync(join(tmpdir(), 'ngym-prompt-'));

function promptFile(text: string): string {
  const path = join(dir(), 'prompt.yaml');
  writeFileSync(path, text);
  return path;
}

describe('prompt configs', () => {
  it('fills {field} placeholders from the row, keeps doubled braces literal, and puts the system message first', () => {
    const prompt = readPromptConfig(promptFile('system: "Level {level}; answer in \\\\boxed{{}}."\nuser: "Q: {question}"\n'));
    const row = { question: 'What is {x}?', level: 2, responses_create_params: { temperature: 0.5 } };
    expect(applyPrompt(prompt, row)).toEqual({
      ...row,
      responses_create_params: { temperature: 0.5, input: [{ role: 'system', content: 'Level 2; answer in \\boxed{}.' }, { role: 'user', content: 'Q: What is {x}?' }] },
    });
  });

  it("writes values that are not strings as Python's str() does, numbers with the row's own spelling", () => {
    const prompt = readPromptConfig(promptFile('user: "{a}|{b}|{c}|{d}|{e}|{f}"\n'));
    const text = '{"a": 2.0, "b": [1, "x", null], "c": true, "d": {"k": 1e-07}, "e": null, "f": 12}';
    expect(fillPrompt(prompt, JSON.parse(text), text)[0]?.content).toBe("2.0|[1, 'x', None]|True|{'k': 1e-07}|None|12");
  });

  it('names the field a row lacks, and refuses a row that already has an input', () => {
    const prompt = readPromptConfig(promptFile('user: "{problem}"\n'));
    expect(() => applyPrompt(prompt, { question: 'q' })).toThrow(PromptRowError);
    expect(() => applyPrompt(prompt, { question: 'q' })).toThrow(/references field 'problem', which the row lacks \(its fields: question\)/);
    expect(() => applyPrompt(prompt, { problem: 'p', responses_create_params: { input: [{ role: 'user', content: 'x' }] } })).toThrow(/already has responses_create_params.input/);
    // An empty input is no input, as upstream's truthiness test says.
    expect(applyPrompt(prompt, { problem: 'p', responses_create_params: { input: [] } }).responses_create_params).toEqual({ input: [{ role: 'user', content: 'p' }] });
  });

  it('refuses a malformed config or template when it is read, naming the file', () => {
    expect(() => readPromptConfig(promptFile('system: "x"\n'))).toThrow(/must hold a `user:` template/);
    expect(() => readPromptConfig(promptFile('user: "a } b"\n'))).toThrow(/a single '}'/);
    expect(() => readPromptConfig(promptFile('user: "{a.b}"\n'))).toThrow(/placeholder \{a\.b\} is not a \{field_name\}/);
    expect(() => readPromptConfig(join(dir(), 'absent.yaml'))).toThrow(/does not exist/);
  });

  it("builds each row's input as the collector reads it; a row the prompt cannot fill is an invalid line naming the field", async () => {
    const path = join(dir(), 'rows.jsonl');
    writeFileSync(path, ['{"question": "one"}', '{"question": "one"}', '{"other": 1}', '{"question": "two", "responses_create_params": {"input": "ready"}}', '{"question": "three"}'].join('\n'));
    const invalid: InvalidInput[] = [];
    const prompt = readPromptConfig(promptFile('user: "Q: {question}"\n'));
    const tasks = [];
    for await (const task of readTasks({ input: path, routing: { agentMap: { _default: 'agent' }, fanOut: undefined, numRepeats: 2 }, prompt, onInvalid: (entry) => invalid.push(entry), onWarning: () => {} })) tasks.push(task);
    expect(tasks.map((task) => [task.taskIndex, task.line, task.rollouts, task.row.responses_create_params])).toEqual([
      [0, 1, 4, { input: [{ role: 'user', content: 'Q: one' }] }],
      [1, 5, 2, { input: [{ role: 'user', content: 'Q: three' }] }],
    ]);
    expect(invalid).toEqual([
      { line: 3, reason: expect.stringMatching(/references field 'question', which the row lacks \(its fields: other\)/) },
      { line: 4, reason: expect.stringMatching(/already has responses_create_params.input/) },
    ]);
  });
});

const wheel = upstreamWheel();

/** Every prompt config of upstream's benchmarks: the files under their prompts folders and each dataset's `prompt_config`. */
function upstreamPromptConfigs(benchmarks: string): string[] {
  const found = new Set<string>();
  for (const entry of readdirSync(benchmarks, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.yaml') || entry.parentPath.includes('__pycache__')) continue;
    const path = join(entry.parentPath, entry.name);
    const text = readFileSync(path, 'utf8');
    if (relative(benchmarks, path).split('/').some((part) => part === 'prompts')) {
      const parsed = parseYaml(text) as Record<string, unknown> | null;
      if (typeof parsed?.user === 'string') found.add(path);
    }
    for (const match of text.matchAll(/prompt_config: (benchmarks\/\S+\.yaml)/g)) found.add(join(benchmarks, '..', match[1] as string));
  }
  return [...found].sort();
}

/** Rows with a value for every placeholder: plain text with braces, quotes and unicode; numbers, lists, None, booleans. */
function sampleRows(fields: string[]): string[] {
  const values: unknown[][] = [
    fields.map((field, index) => `${field} {x} "quoted" \\boxed{} naïve 数学 ${index}\nsecond line`),
    fields.map((_, index) => [2.0, 12, ['a', 1, null], { k: 1e-7 }, true, null, -0.5][index % 7]),
    fields.map((field) => `  ${field}  `),
  ];
  return values.map((row) => `{${[...fields.map((field, index) => `${JSON.stringify(field)}: ${row[index] === 2 ? '2.0' : JSON.stringify(row[index])}`), '"expected_answer": "A"'].join(', ')}}`);
}

describe.skipIf(wheel.skipReason !== null)("prompt configs of upstream's benchmarks", () => {
  it("render every benchmark's prompt config as upstream's apply_prompt_to_row does", () => {
    const configs = upstreamPromptConfigs(join(wheel.sitePackages, 'benchmarks'));
    expect(configs.length).toBeGreaterThan(50);
    const cases = configs.flatMap((path) => {
      const prompt = readPromptConfig(path);
      const fields = [...new Set([...`${prompt.system ?? ''}${prompt.user}`.replaceAll('{{', '').matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1] as string))];
      return [...sampleRows(fields).map((line) => ({ path, line })), { path, line: '{"unrelated": 1}' }];
    });
    const jobs = join(dir(), 'cases.json');
    writeFileSync(jobs, JSON.stringify(cases));
    const script = [
      'import json, sys',
      'from nemo_gym.prompt import apply_prompt_to_row, load_prompt_config',
      'out = []',
      'for case in json.load(open(sys.argv[1])):',
      '    try:',
      '        out.append(apply_prompt_to_row(json.loads(case["line"]), load_prompt_config(case["path"]))["responses_create_params"]["input"])',
      '    except KeyError as error:',
      '        out.append({"error": str(error)})',
      'print(json.dumps(out))',
    ].join('\n');
    const answer = spawnSync(wheel.python, ['-c', script, jobs], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    expect(answer.status, answer.stderr).toBe(0);
    const upstream = JSON.parse(answer.stdout) as unknown[];
    const mismatches = cases.flatMap(({ path, line }, index) => {
      const theirs = upstream[index] as { error?: string } | unknown[];
      let ours: unknown;
      try {
        ours = applyPrompt(readPromptConfig(path), JSON.parse(line) as Record<string, unknown>, line).responses_create_params as { input: unknown };
        ours = (ours as { input: unknown }).input;
      } catch (error) {
        if (!(error instanceof PromptRowError)) throw error;
        ours = { error: 'missing field' };
      }
      const same = Array.isArray(theirs) ? JSON.stringify(ours) === JSON.stringify(theirs) : (ours as { error?: string }).error !== undefined;
      return same ? [] : [{ path, line, ngym: ours, upstream: theirs }];
    });
    expect(mismatches).toEqual([]);
  }, 60_000);
});
