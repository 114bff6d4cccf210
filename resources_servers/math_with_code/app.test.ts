import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bubblewrapUnavailableReason, CookieJar, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, callServer, type InProcessGym, modelResponse, startInProcessGym } from 'ngym/testing';
import definition, { answersMatch, extractBoxedAnswer, finalAnswer, normalizeAnswer } from './app.ts';

const http = sharedHttpClient();
const unavailable = bubblewrapUnavailableReason();

describe('math_with_code answers (upstream 0.7.0 rules)', () => {
  it('extracts the last boxed answer with balanced braces', () => {
    expect(extractBoxedAnswer('The answer is \\boxed{42}.')).toBe('42');
    expect(extractBoxedAnswer('First \\boxed{41}, then \\boxed{42}.')).toBe('42');
    expect(extractBoxedAnswer('The answer is \\boxed{\\frac{1}{2}}.')).toBe('\\frac{1}{2}');
    expect(extractBoxedAnswer('The answer is \\boxed{}.')).toBeNull();
    expect(extractBoxedAnswer('The answer is \\boxed{42')).toBeNull();
    expect(extractBoxedAnswer('The answer is 42.')).toBeNull();
    expect(extractBoxedAnswer('\\boxed{ \n 7 \t}')).toBe('7');
  });

  it('normalizes delimiters and whitespace, then compares as text or as floats', () => {
    expect(normalizeAnswer('  \\( \\frac{1}{2} \\) ')).toBe('\\frac{1}{2}');
    expect(normalizeAnswer('$x  +\n1$')).toBe('x + 1');
    expect(normalizeAnswer('\\text{ yes }')).toBe('yes');
    expect(answersMatch('42.0', '42')).toBe(true);
    expect(answersMatch('.5', '0.5')).toBe(true);
    expect(answersMatch('1_000', '1000')).toBe(true);
    expect(answersMatch('1000.0005', '1000')).toBe(true);
    expect(answersMatch('1000.002', '1000')).toBe(false);
    expect(answersMatch('\\frac{1}{2}', '\\(\\frac{1}{2}\\)')).toBe(true);
    expect(answersMatch('\\frac{1}{2}', '0.5')).toBe(false);
    expect(answersMatch(null, 'None')).toBe(false);
  });

  it('reads assistant messages from the end, then the stdout of tool outputs', () => {
    const call = (stdout: unknown): ResponseItem => ({ type: 'function_call_output', call_id: 'c', output: JSON.stringify({ stdout }) }) as ResponseItem;
    expect(finalAnswer([assistantMessage('\\boxed{1}'), assistantMessage('no box'), assistantMessage('\\boxed{2} then text')])).toBe('2');
    expect(finalAnswer([call('\\boxed{3}\n'), assistantMessage('done')])).toBe('3');
    expect(finalAnswer([{ type: 'function_call_output', call_id: 'c', output: 'raw \\boxed{4}' } as ResponseItem])).toBe('4');
    expect(finalAnswer([call(null)])).toBeNull();
  });

  it('reads a JSON tool output without stdout as empty, not its other keys (0.7.0: `.get("stdout", "")`); a JSON list or string as text', () => {
    const output = (text: string): ResponseItem => ({ type: 'function_call_output', call_id: 'c', output: text }) as ResponseItem;
    expect(finalAnswer([output(JSON.stringify({ success: false, error_message: '\\boxed{5}' }))])).toBeNull();
    expect(finalAnswer([output(JSON.stringify({ result: '\\boxed{5}' })), output(JSON.stringify({ stdout: '\\boxed{6}' }))])).toBe('6');
    expect(finalAnswer([output(JSON.stringify([{ stdout: '\\boxed{7}' }]))])).toBe('7');
    expect(finalAnswer([output(JSON.stringify('\\boxed{8}'))])).toBe('8');
  });

  it('offers the execute_python tool as upstream data declares it', () => {
    expect(definition.toolDefinitions()).toEqual([
      {
        type: 'function',
        name: 'execute_python',
        description: 'Execute Python code to perform calculations. You have access to numpy, scipy, pandas and basic math operations.',
        parameters: {
          properties: { code: { type: 'string', title: 'Python Code', description: 'The Python code to execute for the calculation.' } },
          type: 'object',
          required: ['code'],
          additionalProperties: false,
        },
        strict: true,
      },
    ]);
  });
});

describe.skipIf(unavailable !== null)('math_with_code in the sandbox', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      config: { math_with_code: { resources_servers: { math_with_code: { entrypoint: 'app.ts', domain: 'math', max_execution_time: 1, sandbox: { pool_size: 2 } } } } },
    });
  });
  afterAll(async () => gym?.close());

  /** A rollout's session: its cookies go with every call. */
  function session() {
    const cookies = new CookieJar();
    const post = async (path: string, body: unknown) => {
      const reply = await http.request(gym.url('math_with_code', path), { body, cookies });
      cookies.merge(reply.cookies);
      return { status: reply.status, body: reply.json<Record<string, any>>() };
    };
    return { run: async (code: string) => (await post('/execute_python', { code })).body, post };
  }

  it('keeps variables between the calls of a rollout, and apart from other rollouts', async () => {
    const first = session();
    const second = session();
    expect(await first.run('x = 21\nprint("set")')).toEqual({ success: true, stdout: 'set\n', stderr: '', error_message: null, result: null });
    expect(await first.run('x * 2')).toEqual({ success: true, stdout: '', stderr: '', error_message: null, result: '42' });
    expect(await second.run('x')).toEqual({ success: false, stdout: '', stderr: '', error_message: "name 'x' is not defined", result: null });
    expect(await first.run('import sys\nprint("warn", file=sys.stderr)\nnp.array([1, 2]).sum()')).toMatchObject({ stderr: 'warn\n', result: '3' });
  });

  it('has upstream’s restricted builtins and separate globals and locals', async () => {
    const rollout = session();
    expect((await rollout.run('sorted([2, 1])')).error_message).toBe("name 'sorted' is not defined");
    // A function sees the globals only, where top-level assignments do not go.
    expect((await rollout.run('y = 3\ndef f():\n    return y\nprint(f())')).error_message).toBe("name 'y' is not defined");
    expect(await rollout.run('import math\nprint(math.factorial(5), pd.Series([1, 2]).sum(), scipy.__name__)')).toMatchObject({ success: true, stdout: '120 3 scipy\n' });
  });

  it('stops a call at max_execution_time, and a call that will not stop by ending its session', async () => {
    const rollout = session();
    await rollout.run('kept = 1');
    expect(await rollout.run('while True:\n    pass')).toEqual({ success: false, stdout: '', stderr: '', error_message: 'code timed-out', result: null });
    expect((await rollout.run('kept')).result).toBe('1');
    // A bare except (BaseException is not among the builtins) swallows each alarm.
    const stubborn = await rollout.run('while True:\n    try:\n        while True:\n            pass\n    except:\n        pass');
    expect(stubborn.success).toBe(false);
    expect(stubborn.error_message).toMatch(/no answer within 6 s; the Python session was restarted, its variables are gone/);
    expect((await rollout.run('kept')).error_message).toBe("name 'kept' is not defined");
  });

  it('restarts a session whose code ended its Python', async () => {
    const rollout = session();
    await rollout.run('kept = 1');
    const ended = await rollout.run('import sys\nsys.exit(3)');
    expect(ended.success).toBe(false);
    expect(ended.error_message).toMatch(/the Python session was restarted/);
    expect((await rollout.run('1 + 1')).result).toBe('2');
  });

  it('ends a session on /end_session and after verify', async () => {
    const rollout = session();
    await rollout.run('kept = 1');
    expect((await rollout.post('/end_session', {})).body).toEqual({ success: true, stdout: '', stderr: '', error_message: null, result: null });
    expect((await rollout.run('kept')).success).toBe(false);
    await rollout.run('kept = 2');
    const verified = await rollout.post('/verify', {
      responses_create_params: { input: [] },
      response: modelResponse([assistantMessage('\\boxed{\\frac{1}{2}}')]),
      expected_result: '0.5',
      expected_code_contains: '',
    });
    // 0.5 and \frac{1}{2} differ for upstream's rule, the default.
    expect(verified.body).toMatchObject({ reward: 0, extracted_answer: '\\frac{1}{2}', accuracy: false, expected_result: '0.5' });
    expect((await rollout.run('kept')).success).toBe(false);
  });

  it('with math_verify: true also accepts what the math verifier finds equal', async () => {
    const lenient = await startInProcessGym({
      config: { math_with_code: { resources_servers: { math_with_code: { entrypoint: 'app.ts', domain: 'math', math_verify: true, sandbox: { pool_size: 1 } } } } },
    });
    try {
      const verify = async (answer: string, expected: string) =>
        callServer(lenient, 'math_with_code', '/verify', { responses_create_params: { input: [] }, response: modelResponse([assistantMessage(`\\boxed{${answer}}`)]), expected_result: expected });
      expect(await verify('\\frac{1}{2}', '0.5')).toMatchObject({ reward: 1, extracted_answer: '\\frac{1}{2}', accuracy: true });
      expect(await verify('\\frac{1}{3}', '0.5')).toMatchObject({ reward: 0, accuracy: false });
    } finally {
      await lenient.close();
    }
  });
});

describe.skipIf(unavailable === null)('math_with_code in the sandbox', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});
