import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, type Sandbox, SandboxError, type SandboxRunRequest, type SandboxRunResult, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import { extractPythonCode } from './extract-code.ts';
import { laxInt, laxIntGrid, parseGrid } from './grid.ts';
import { TransformRunner } from './transform-runner.ts';

const http = sharedHttpClient();
const unavailable = bubblewrapUnavailableReason();

const row = {
  responses_create_params: { input: [{ role: 'user', content: 'Solve the puzzle.' }] },
  train: [{ input: [[1, 0]], output: [[0, 1]] }],
  test_input: [[1, 2, 0], [0, 3, 4]],
  expected_output: [[0, 2, 1], [4, 3, 0]],
  task_id: 'mirror',
};

const server = (config: Record<string, unknown>) => ({ nvarc: { resources_servers: { nvarc: { entrypoint: 'app.ts', domain: 'knowledge', ...config } } } });

async function verify(on: InProcessGym, texts: string | string[], extra: Record<string, unknown> = {}) {
  const response = modelResponse((Array.isArray(texts) ? texts : [texts]).map((text) => assistantMessage(text)));
  const reply = await http.request(on.url('nvarc', '/verify'), { body: { ...row, ...extra, response } });
  return { status: reply.status, body: reply.json<Record<string, any>>() };
}

describe('nvarc grid parsing (upstream 0.7.0 Board.from_text, integer palette)', () => {
  it('reads the box from its first `\\boxed{` to the last `}`, or the whole text, one row per line', () => {
    expect(parseGrid('\\boxed{1 2\n3 4}')).toEqual([[1, 2], [3, 4]]);
    expect(parseGrid('0 1 0\n1 1 1')).toEqual([[0, 1, 0], [1, 1, 1]]);
    // The box runs to the last `}`: `boxed3` is one word, and goes.
    expect(parseGrid('\\boxed{1 2} and then \\boxed{3 4}')).toEqual([[1, 2, 4]]);
    expect(parseGrid('\\boxed{}')).toBeNull();
  });

  it('drops punctuation, then every word that is not one digit; other whitespace separates cells, only \\n rows', () => {
    expect(parseGrid('[[1, 2], [3, 4]]')).toEqual([[1, 2, 3, 4]]);
    expect(parseGrid('[1, 2]\n[3, 4]')).toEqual([[1, 2], [3, 4]]);
    expect(parseGrid('1,2\n3,4')).toBeNull();
    expect(parseGrid('1, 2\n3, 4')).toEqual([[1, 2], [3, 4]]);
    expect(parseGrid('Row: 1 10 2\nrow 3 x 4')).toEqual([[1, 2], [3, 4]]);
    expect(parseGrid('1\r2\u00a03\n4\u20035\u000b6')).toEqual([[1, 2, 3], [4, 5, 6]]);
    expect(parseGrid('1 ٣ 2')).toEqual([[1, 2]]);
  });

  it('drops <think> blocks, and refuses ragged or empty grids', () => {
    expect(parseGrid('<think>maybe 9 9</think>\\boxed{0 1\n1 0}')).toEqual([[0, 1], [1, 0]]);
    expect(parseGrid('0 1 2\n3 4')).toBeNull();
    expect(parseGrid('no grid here')).toBeNull();
    expect(parseGrid('')).toBeNull();
  });
});

describe('nvarc code extraction', () => {
  it('takes the last ```python block, else the last bare block, else the text when it defines transform', () => {
    expect(extractPythonCode('```python\ndef transform(g):\n    return g\n```')).toBe('def transform(g):\n    return g');
    expect(extractPythonCode('```python\nfirst\n```\n```python  \n second \n```')).toBe('second');
    expect(extractPythonCode('```python\nkept\n```\n```\nbare\n```')).toBe('kept');
    expect(extractPythonCode('```\ndef transform(g): return g\n```')).toBe('def transform(g): return g');
    expect(extractPythonCode('def transform(grid):\n    return [[0]]')).toBe('def transform(grid):\n    return [[0]]');
    expect(extractPythonCode('<think>```python\nhidden\n```</think> just text')).toBeNull();
    expect(extractPythonCode('```python def transform(g): return g```')).toBe('```python def transform(g): return g```');
    expect(extractPythonCode('```python\n```')).toBe('');
  });
});

describe("nvarc integers as pydantic's lax int reads them", () => {
  it('accepts integers, integral floats, bools and integer strings; refuses the rest', () => {
    expect([1, 2.0, -0, true, false, ' 7\n', '+3', '1_000', '4.00', '\u00a05'].map(laxInt)).toEqual([1, 2, 0, 1, 0, 7, 3, 1000, 4, 5]);
    expect([1.5, Number.NaN, 2 ** 63, '4.5', '1e2', '_1', '٣', '3\u001c', null, [1]].map(laxInt)).toEqual(Array(10).fill(undefined));
    expect(laxIntGrid([[1, '2'], [true]])).toEqual([[1, 2], [1]]);
    expect(laxIntGrid([1, 2])).toBeUndefined();
    expect(laxIntGrid('[[1]]')).toBeUndefined();
  });
});

/** A sandbox that answers the numpy check and each run from a script, recording the runs' requests. */
function scriptedSandbox(numpy: boolean, outputs: Partial<SandboxRunResult>[]) {
  const requests: SandboxRunRequest[] = [];
  const result = (partial: Partial<SandboxRunResult>): SandboxRunResult => ({
    status: 'exited', exitCode: 0, signal: null, stdout: '', stderr: '', stdoutTruncated: false, stderrTruncated: false, wallSeconds: 0, cpuSeconds: 0, maxRssBytes: 0, reason: null, ...partial,
  });
  const sandbox = {
    run: async (request: SandboxRunRequest) => {
      requests.push(request);
      if (request.command.includes('import numpy')) return result(numpy ? {} : { exitCode: 1, stderr: "ModuleNotFoundError: No module named 'numpy'" });
      return result(outputs.shift() ?? {});
    },
  } as unknown as Sandbox;
  return { sandbox, requests };
}

describe('nvarc transform runner', () => {
  it("reads the runner's answer as upstream: a grid pydantic accepts, else no prediction", async () => {
    const answers = ['{"success": true, "result": [[1.0, true], ["2", 0]]}', '{"success": true, "result": [[1], [1, 2]]}', '{"success": true, "result": [[NaN]]}', '{"success": false, "error": "ValueError: x"}', 'noise{"success": true, "result": [[1]]}', '{"success": true, "result": null}', ''];
    const { sandbox, requests } = scriptedSandbox(true, [...answers.map((stdout) => ({ stdout })), { status: 'wall_timeout', stdout: '{"success": true, "result": [[1]]}' }, { exitCode: 1, stdout: '{"success": true, "result": [[1]]}' }]);
    const runner = new TransformRunner(sandbox, 3);
    const results = [];
    for (let index = 0; index < answers.length + 2; index++) results.push(await runner.run('def transform(g): return g', [[5]]));
    expect(results).toEqual([[[1, 1], [2, 0]], null, null, null, null, null, null, null, null]);
    // One numpy check, then each run: the program and grid on stdin, upstream's limits (the alarm, the whole run 5 s more).
    expect(requests.filter((request) => request.command.includes('import numpy'))).toHaveLength(1);
    expect(JSON.parse(String(requests[1]?.stdin))).toEqual({ code: 'def transform(g): return g', grid: [[5]], timeout: 3 });
    expect(requests[1]?.limits).toEqual({ wallSeconds: 8, cpuSeconds: 8 });
  });

  it('a sandbox without numpy is an error (503), checked again on the next call, never a reward of 0', async () => {
    const { sandbox, requests } = scriptedSandbox(false, []);
    const runner = new TransformRunner(sandbox, 3);
    await expect(runner.run('def transform(g): return g', [[5]])).rejects.toThrow(SandboxError);
    await expect(runner.ready()).rejects.toThrow(/needs numpy in the sandbox's python3 \(Debian: apt-get install python3-numpy\): ModuleNotFoundError/);
    expect(requests).toHaveLength(2);
  });
});

describe('nvarc transductive', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: server({ agent_mode: 'transductive' }) });
  });
  afterAll(async () => gym?.close());

  it('rewards the exact grid and reports what it read', async () => {
    const right = await verify(gym, 'The rows are mirrored.\n\\boxed{0 2 1\n4 3 0}');
    expect(right).toMatchObject({ status: 200, body: { reward: 1, predicted_output: [[0, 2, 1], [4, 3, 0]], extraction_successful: true, exact_match: true, agent_mode: 'transductive', expected_output: row.expected_output, task_id: 'mirror' } });
    const wrong = await verify(gym, '\\boxed{0 2 1\n4 3 3}');
    expect(wrong.body).toMatchObject({ reward: 0, predicted_output: [[0, 2, 1], [4, 3, 3]], extraction_successful: true, exact_match: false });
    const none = await verify(gym, 'I am not sure.');
    expect(none.body).toMatchObject({ reward: 0, predicted_output: null, extraction_successful: false, exact_match: false });
  });

  it('joins every assistant message with newlines (a grid may span two), and ignores tool calls', async () => {
    expect((await verify(gym, ['0 2 1', '4 3 0'])).body.reward).toBe(1);
    const response = modelResponse([functionCall('grid', { rows: 2 }, 'call_1'), assistantMessage('\\boxed{0 2 1\n4 3 0}')]);
    const reply = await http.request(gym.url('nvarc', '/verify'), { body: { ...row, response } });
    expect(reply.json<Record<string, unknown>>().reward).toBe(1);
  });

  it("reads the row's grids as pydantic does: integral floats and bools are ints, other values a 422", async () => {
    const coerced = await verify(gym, '\\boxed{0 1}', { expected_output: [[0.0, true]], test_input: [['1', 2]] });
    expect(coerced.body).toMatchObject({ reward: 1, expected_output: [[0, 1]] });
    expect((await verify(gym, '\\boxed{0 1}', { expected_output: [[0, 'x']] })).status).toBe(422);
    expect((await verify(gym, '\\boxed{0 1}', { expected_output: [0, 1] })).status).toBe(422);
    expect((await verify(gym, '\\boxed{0 1}', { train: ['not a dict'] })).status).toBe(422);
    expect((await verify(gym, '\\boxed{0 1}', { task_id: 7 })).status).toBe(422);
  });

  it('scores a row without expected_output 0, against the empty grid upstream defaults it to', async () => {
    const { expected_output: _, ...withoutExpected } = row;
    const response = modelResponse([assistantMessage('\\boxed{0 2 1\n4 3 0}')]);
    const reply = await http.request(gym.url('nvarc', '/verify'), { body: { ...withoutExpected, response } });
    expect(reply.json<Record<string, unknown>>()).toMatchObject({ reward: 0, expected_output: [], extraction_successful: true });
  });

  it("an empty row agent_mode falls back to the server's; any other is taken as it is (not inductive: a grid)", async () => {
    expect((await verify(gym, '\\boxed{0 2 1\n4 3 0}', { agent_mode: '' })).body).toMatchObject({ reward: 1, agent_mode: 'transductive' });
    expect((await verify(gym, '\\boxed{0 2 1\n4 3 0}', { agent_mode: 'Inductive' })).body).toMatchObject({ reward: 1, agent_mode: 'Inductive' });
  });
});

describe.skipIf(unavailable !== null)('nvarc inductive (the sandbox)', () => {
  let gym: InProcessGym;
  let transductive: InProcessGym;
  beforeAll(async () => {
    [gym, transductive] = await Promise.all([
      startInProcessGym({ config: server({ agent_mode: 'inductive', python_timeout_seconds: 1, sandbox: { pool_size: 1 } }) }),
      startInProcessGym({ config: server({ sandbox: { pool_size: 0 } }) }),
    ]);
  });
  afterAll(async () => Promise.all([gym?.close(), transductive?.close()]));

  const program = (body: string) => `Here is the rule.\n\n\`\`\`python\n${body}\n\`\`\``;

  it("runs transform on the test input: a numpy result counts, the program's own prints do not", async () => {
    const mirror = 'import numpy as np\n\ndef transform(grid):\n    print("debugging")\n    return np.fliplr(np.array(grid))';
    expect((await verify(gym, program(mirror))).body).toMatchObject({ reward: 1, predicted_output: [[0, 2, 1], [4, 3, 0]], extraction_successful: true, agent_mode: 'inductive' });
    const floats = 'import numpy as np\n\ndef transform(grid):\n    return np.zeros((2, 3)).tolist()';
    expect((await verify(gym, program(floats))).body).toMatchObject({ reward: 0, predicted_output: [[0, 0, 0], [0, 0, 0]] });
  });

  it("keeps upstream's restrictions: no class statements, no os, no open", async () => {
    for (const body of [
      'class Rule:\n    pass\n\ndef transform(grid):\n    return [row[::-1] for row in grid]',
      'import os\n\ndef transform(grid):\n    return [row[::-1] for row in grid]',
      'def transform(grid):\n    open("x", "w")\n    return [row[::-1] for row in grid]',
    ]) {
      expect((await verify(gym, program(body))).body, body).toMatchObject({ reward: 0, predicted_output: null, extraction_successful: false });
    }
  });

  it('gives no prediction for a program without transform, one that fails, loops past its time, exits, or returns no grid', async () => {
    for (const body of [
      'x = 42',
      'def transform(grid):\n    return grid[99]',
      'def transform(grid):\n    while True:\n        pass',
      'import sys\n\ndef transform(grid):\n    sys.exit(0)',
      'def transform(grid):\n    return [[1, 2], [3]]',
      'def transform(grid):\n    return [[1.5]]',
      'def transform(grid):\n    return None',
      'import sys\nsys.__stdout__.write("noise")\n\ndef transform(grid):\n    return [row[::-1] for row in grid]',
    ]) {
      expect((await verify(gym, program(body))).body, body).toMatchObject({ reward: 0, predicted_output: null, extraction_successful: false });
    }
  });

  it("hands the program the row's test_input as pydantic reads it (digit strings and bools are ints)", async () => {
    const body = program('def transform(grid):\n    return [[cell + 1 for cell in row] for row in grid]');
    expect((await verify(gym, body, { test_input: [['1', true]], expected_output: [[2, 2]] })).body).toMatchObject({ reward: 1, predicted_output: [[2, 2]] });
  });

  it('answers without code score 0 without running anything', async () => {
    expect((await verify(gym, 'The rule mirrors rows.')).body).toMatchObject({ reward: 0, predicted_output: null, agent_mode: 'inductive' });
  });

  it("a row's agent_mode runs its program on a transductive server too (its box starts then)", async () => {
    const body = program('def transform(grid):\n    return [row[::-1] for row in grid]');
    expect((await verify(transductive, body, { agent_mode: 'inductive' })).body).toMatchObject({ reward: 1, agent_mode: 'inductive' });
    expect((await verify(transductive, body)).body).toMatchObject({ reward: 0, agent_mode: 'transductive' });
  });
});

describe.skipIf(unavailable === null)('nvarc inductive (the sandbox)', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
