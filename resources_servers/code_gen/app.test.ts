import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import { extractCode } from './app.ts';

const http = sharedHttpClient();
const unavailable = bubblewrapUnavailableReason();
const tests = { inputs: ['1 2\n', '5 5\n'], outputs: ['3\n', '10\n'] };
const row = { responses_create_params: { input: [{ role: 'user', content: 'Add two numbers.' }] }, verifier_metadata: { unit_tests: tests }, hash_id: 'h1' };
const fenced = (code: string) => `Here it is.\n\`\`\`python\n${code}\n\`\`\``;
const SUM = 'a, b = map(int, input().split())\nprint(a + b)';

describe('extractCode', () => {
  it('takes the lines between the last two fence lines', () => {
    expect(extractCode('```python\nold\n```\ntext\n```python\nnew\nlines\n```')).toBe('new\nlines');
    expect(extractCode('just text')).toBe('');
    expect(extractCode('```python\nunclosed')).toBe('');
    expect(extractCode('a ```python\nx = 1\nb ``` c')).toBe('x = 1');
  });
});

describe.skipIf(unavailable !== null)('code_gen verify', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      config: {
        code_gen: {
          resources_servers: {
            code_gen: { entrypoint: 'app.ts', domain: 'coding', unit_test_timeout_secs: 1, reasoning_format_penalty: -0.5, sandbox: { pool_size: 2 } },
          },
        },
      },
    });
  });
  afterAll(async () => gym?.close());

  async function verify(output: ResponseItem[] | string, extra: Record<string, unknown> = {}) {
    const items = typeof output === 'string' ? [assistantMessage(output)] : output;
    const reply = await http.request(gym.url('code_gen', '/verify'), { body: { ...row, ...extra, response: modelResponse(items) } });
    return { status: reply.status, body: reply.json<Record<string, any>>() };
  }

  it('rewards code that passes every test and echoes the row', async () => {
    const { status, body } = await verify(fenced(SUM));
    expect(status).toBe(200);
    expect(body).toMatchObject({ reward: 1, result: [true, true], extracted_model_code: SUM, hash_id: 'h1', reasoning_format_violation_rate: 0, difficulty: null });
    expect(Object.keys(body.metadata)).toEqual(['execution time']);
    expect(body.unit_tests_time_taken).toBeGreaterThan(0);
  });

  it('stops at the first failing test and reports it', async () => {
    const { body } = await verify(fenced('a, b = map(int, input().split())\nprint(a + b if a == 1 else 0)'));
    expect(body.reward).toBe(0);
    expect(body.result).toEqual([true, -2]);
    expect(body.metadata).toEqual({ output: '0\n', inputs: '5 5\n', expected: '10\n', error_code: -2, error_message: 'Wrong answer at output_line_idx=0: 0 != 10' });
  });

  it('gives 0 without output or without a code block, with the same fields', async () => {
    const empty = await verify('   ');
    expect(empty.body).toMatchObject({ reward: 0, extracted_model_output: null, extracted_model_code: null, result: null, metadata: null, unit_tests_time_taken: null });
    const prose = await verify('I would add them.');
    expect(prose.body).toMatchObject({ reward: 0, extracted_model_output: 'I would add them.', extracted_model_code: null, result: null });
  });

  it('reads packed tests (zlib + base64) and keeps the difficulty', async () => {
    const packed = deflateSync(Buffer.from(JSON.stringify(tests))).toString('base64');
    const { body } = await verify(fenced(SUM), { verifier_metadata: { unit_tests: { packed, fn_name: null }, difficulty: 'easy' } });
    expect(body).toMatchObject({ reward: 1, result: [true, true], difficulty: 'easy' });
  });

  it('answers 422 for missing or unreadable tests', async () => {
    expect((await verify(fenced(SUM), { verifier_metadata: {} })).status).toBe(422);
    const bad = await verify(fenced(SUM), { verifier_metadata: { unit_tests: { packed: 'not zlib' } } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toMatch(/packed is not base64 of zlib-compressed/);
  });

  it('applies the reasoning format penalty to <think> tags in the answer, after running the tests', async () => {
    const { body } = await verify(`<think>hmm</think>${fenced(SUM)}`);
    expect(body).toMatchObject({ reward: -0.5, reasoning_format_violation_rate: 1, result: [true, true] });
    const reasoning: ResponseItem = { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: '<think>a</think><think>b</think>' }] } as ResponseItem;
    expect((await verify([reasoning, assistantMessage(fenced(SUM))])).body.reward).toBe(-0.5);
  });

  it('counts a run that outlives the global limit as -1 for every test', async () => {
    // Swallows each test's alarm and loops on: only the whole task's limit ((1 + 1) * 1 + 5 s) ends it.
    const code = 'while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass';
    const { body } = await verify(fenced(code), { verifier_metadata: { unit_tests: { inputs: ['1'], outputs: ['1'] } } });
    expect(body).toMatchObject({ reward: 0, result: [-1], metadata: null });
  });

  it('keeps the expected outputs away from the solution', async () => {
    // The needle is built at run time, so the solution's own file does not contain it. Files over 1 MB and the
    // package databases (/var/lib, /var/cache) are skipped so the walk stays inside the 1 s limit on a loaded machine.
    const snoop =
      'import os\nneedle = "expected-" + str(7700 + 31)\nfound = []\nfor root, dirs, files in os.walk("/"):\n    if root.startswith(("/proc", "/usr", "/dev", "/sys", "/var/lib", "/var/cache")):\n        dirs[:] = []\n        continue\n    for name in files:\n        path = os.path.join(root, name)\n        try:\n            if os.path.getsize(path) < 1000000 and needle in open(path).read():\n                found.append(name)\n        except Exception:\n            pass\nprint(found, needle in str(dict(os.environ)))';
    const { body } = await verify(fenced(snoop), { verifier_metadata: { unit_tests: { inputs: ['1'], outputs: ['expected-7731'] } } });
    expect(body.result).toEqual([-2]);
    expect(body.metadata.output).toBe('[] False\n');
  });
});

describe.skipIf(unavailable === null)('code_gen verify', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
