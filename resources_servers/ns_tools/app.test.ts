/**
 * ns_tools through its HTTP surface: the Python tool's output as the model reads it, sessions, time limits,
 * hostile code, bad calls, and verify delegated to math_with_judge (its reward, its refusals and its failures).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, CookieJar, type ResponseItem, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, scriptedModel, startInProcessGym } from 'ngym/testing';
import { PACKAGE_ROOT } from 'ngym/runtime';
import { pythonToolUnavailableReason } from './sandbox-requirements.ts';
import { cellOutput, endedOutput, REQUEST_TIMEOUT_OUTPUT, SESSION_LOST_WARNING } from './tool-output.ts';
import { PYTHON_TOOL_NAME, pythonToolSettings, STATEFUL_PYTHON_TOOL } from './tool-specs.ts';

const http = sharedHttpClient();
const unavailable = pythonToolUnavailableReason();
const DIRECT = 'nemo_skills.mcp.servers.python_tool::DirectPythonTool';

describe('ns_tools tool settings', () => {
  it('serves the Python tool for either spelling of either Python tool, with NeMo-Skills’ defaults', () => {
    expect(pythonToolSettings([DIRECT], {}, false)).toEqual({ execTimeoutSeconds: 10, maxOutputCharacters: 1000, restoreSessions: true });
    expect(pythonToolSettings(['nemo_skills.mcp.servers.python_tool.PythonTool'], { PythonTool: { exec_timeout_s: 2.5, client_params: {} } }, true)).toEqual({
      execTimeoutSeconds: 2.5,
      maxOutputCharacters: 1000,
      restoreSessions: false,
    });
    expect(pythonToolSettings([], {}, false)).toBeNull();
  });

  it('refuses at start a tool ngym has no port of, two Python tools, and a bad override, naming them', () => {
    const refusal = (...args: Parameters<typeof pythonToolSettings>) => {
      try {
        pythonToolSettings(...args);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error('expected a ConfigError');
    };
    expect(refusal([DIRECT, 'nemo_skills.mcp.servers.arxiv_tool.ArxivSearchTool'], {}, false)).toMatch(/nemo_skills_tools lists nemo_skills\.mcp\.servers\.arxiv_tool\.ArxivSearchTool: ngym has no port/);
    expect(refusal([DIRECT, 'nemo_skills.mcp.servers.python_tool::PythonTool'], {}, false)).toMatch(/both DirectPythonTool and PythonTool/);
    expect(refusal([DIRECT], { DirectPythonTool: { exec_timeout_s: 0 } }, false)).toMatch(/nemo_skills_tool_overrides\.DirectPythonTool: exec_timeout_s/);
  });

  it('lists the tool as NeMo-Skills does', () => {
    expect(STATEFUL_PYTHON_TOOL).toMatchObject({ name: PYTHON_TOOL_NAME, parameters: { properties: { code: { type: 'string' } }, required: ['code'] }, strict: true });
  });

  it('shows a cell as text, stdout then stderr; a timeout and a lost call as upstream’s JSON objects', () => {
    expect(cellOutput({ status: 'completed', stdout: 'a\n2', stderr: '' })).toBe('a\n2');
    expect(cellOutput({ status: 'error', stdout: '', stderr: 'w' }, 'careful')).toBe('careful\nw');
    expect(cellOutput({ status: 'completed', stdout: '', stderr: '' })).toBe('');
    expect(JSON.parse(cellOutput({ status: 'timeout', stdout: 'partial', stderr: '' }))).toEqual({ process_status: 'timeout', stdout: 'partial', stderr: 'Timed out' });
    expect(JSON.parse(REQUEST_TIMEOUT_OUTPUT)).toEqual({ error: 'Request timeout', process_status: 'timeout' });
    expect(JSON.parse(endedOutput('memory_limit'))).toEqual({ error: expect.stringContaining('(memory_limit)') });
  });
});

/** A judge that answers nonsense for questions saying so, and fails (a 500) for questions saying that. */
const judge = scriptedModel(({ input }) => {
  const prompt = JSON.stringify(input);
  if (prompt.includes('JUDGE FAILS')) throw new Error('judge down');
  return [assistantMessage(prompt.includes('JUDGE NONSENSE') ? 'I like turtles.' : 'My final verdict is [[A=B]]')];
});

const mathWithJudge = (shouldUseJudge: boolean) => ({
  resources_servers: {
    math_with_judge: {
      entrypoint: 'app.ts',
      domain: 'math',
      should_use_judge: shouldUseJudge,
      judge_model_server: { type: 'responses_api_models', name: 'judge_model' },
      judge_responses_create_params: { input: [] },
    },
  },
});

function gymConfig(nsTools: Record<string, unknown>) {
  return {
    ns_tools: {
      resources_servers: {
        ns_tools: {
          entrypoint: 'app.ts',
          domain: 'agent',
          verifiers: { math_with_judge: { type: 'resources_servers', name: 'math_with_judge' }, judged: { type: 'resources_servers', name: 'judged_math' } },
          ...nsTools,
        },
      },
    },
    math_with_judge: mathWithJudge(false),
    judged_math: mathWithJudge(true),
    judge_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
  };
}

const toolConfig = (overrides: Record<string, unknown> = {}) => ({
  nemo_skills_tools: [DIRECT],
  nemo_skills_tool_overrides: { DirectPythonTool: { exec_timeout_s: 2, max_output_characters: 300 } },
  disable_session_restore: true,
  sandbox: { pool_size: 2 },
  ...overrides,
});

/** A rollout's session with ns_tools: its cookies go with every call. */
function rollout(gym: InProcessGym) {
  const cookies = new CookieJar();
  const post = async (path: string, body: unknown) => {
    const reply = await http.request(gym.url('ns_tools', path), { body, cookies });
    cookies.merge(reply.cookies);
    return reply;
  };
  return { post, run: async (code: string) => (await post(`/${PYTHON_TOOL_NAME}`, { code })).text };
}

const question = (text: string) => ({ input: [{ role: 'user', content: text }], tools: [STATEFUL_PYTHON_TOOL] });

function verifyBody(answer: string, fields: Record<string, unknown> = {}, output: ResponseItem[] = []) {
  return {
    responses_create_params: question('What is 6 times 7?'),
    response: modelResponse([...output, assistantMessage(answer)]),
    question: 'What is 6 times 7?',
    expected_answer: '42',
    ...fields,
  };
}

describe('ns_tools without tools', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: gymConfig({}), definitions: { judge_model: judge.definition } });
  });
  afterAll(async () => gym?.close());

  it('serves no tool route, as upstream, and still verifies through math_with_judge', async () => {
    const session = rollout(gym);
    expect((await session.post(`/${PYTHON_TOOL_NAME}`, { code: '1' })).status).toBe(404);
    const verified = (await session.post('/verify', verifyBody('\\boxed{42}'))).json<Record<string, any>>();
    expect(verified).toMatchObject({ reward: 1, verifier_type: null, num_tool_calls: 0, tool_timeout_count: 0, tool_request_timeout_count: 0, avg_tool_call_time_seconds: 0 });
    expect(verified.delegated_response).toMatchObject({ reward: 1, expected_answer: '42', extracted_answer: '42', library_reward: 1, judge_evaluations: null });
  });
});

describe.skipIf(unavailable !== null)('ns_tools in the sandbox', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: gymConfig(toolConfig()), definitions: { judge_model: judge.definition } });
  });
  afterAll(async () => gym?.close());

  it('answers as plain text what a notebook cell shows: stdout, then the last value as IPython displays it', async () => {
    const session = rollout(gym);
    const reply = await session.post(`/${PYTHON_TOOL_NAME}`, { code: 'x = 6 * 7\nprint("computed")\nx' });
    expect([reply.status, reply.headers['content-type'], reply.text]).toEqual([200, 'text/plain; charset=utf-8', 'computed\n42']);
    // IPython's pretty printer breaks what is wider than 79 columns; None shows nothing.
    expect(await session.run('[(n, n * n) for n in range(8)], "x" * 40')).toBe(
      "([(0, 0), (1, 1), (2, 4), (3, 9), (4, 16), (5, 25), (6, 36), (7, 49)],\n 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')",
    );
    expect(await session.run('{"b": 1, "a": 2}')).toBe("{'b': 1, 'a': 2}");
    expect(await session.run('y = x;\nNone')).toBe('');
    expect(await session.run('import sys\nprint("to stderr", file=sys.stderr)\nprint("  indented  ")')).toBe('indented\nto stderr');
    expect(await session.run('from fractions import Fraction\nFraction(1, 3) + Fraction(1, 6)')).toBe('Fraction(1, 2)');
  });

  it('shows errors as a Plain traceback without the cell’s own location lines', async () => {
    const session = rollout(gym);
    expect(await session.run('values = [1, 2]\nvalues[5]')).toBe('Traceback (most recent call last):\n    values[5]\nIndexError: list index out of range');
    expect(await session.run('def f(n):\n    return 1 / n\nprint("before")\nf(0)')).toBe(
      'before\nTraceback (most recent call last):\n    f(0)\n    return 1 / n\nZeroDivisionError: division by zero',
    );
    expect(await session.run('x = (')).toBe('x = (\n         ^\nSyntaxError: incomplete input');
    expect(await session.run('undefined_name')).toBe("Traceback (most recent call last):\n    undefined_name\nNameError: name 'undefined_name' is not defined");
  });

  it('cuts stdout at max_output_characters with "<output cut>"', async () => {
    const output = await rollout(gym).run('print("7" * 1000)');
    expect(output).toBe(`${'7'.repeat(300)}<output cut>`);
  });

  it('keeps a rollout’s variables and imports from call to call, apart from other rollouts’', async () => {
    const first = rollout(gym);
    const second = rollout(gym);
    await first.run('import math\ntotal = math.factorial(5)');
    expect(await first.run('total + 1')).toBe('121');
    expect(await second.run('total')).toMatch(/NameError: name 'total' is not defined$/);
    expect(await first.run('def double(n):\n    return 2 * n\ndouble(total)')).toBe('240');
  });

  it('interrupts a cell at exec_timeout_s with its output so far, keeping the session’s state', async () => {
    const session = rollout(gym);
    await session.run('kept = 5');
    const output = await session.run('print("started", flush=True)\nwhile True:\n    pass');
    expect(JSON.parse(output)).toEqual({ process_status: 'timeout', stdout: 'started', stderr: 'Timed out' });
    // Code that catches Exception does not catch the interruption.
    expect(JSON.parse(await session.run('try:\n    while True:\n        pass\nexcept Exception:\n    print("caught")'))).toMatchObject({ process_status: 'timeout', stdout: '' });
    expect(await session.run('kept')).toBe('5');
  });

  it('ends an interpreter that gives no answer (it swallows the interruption) with upstream’s request timeout; the next call warns its state is gone', async () => {
    const session = rollout(gym);
    await session.run('kept = 5');
    expect(await session.run('while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass')).toBe(REQUEST_TIMEOUT_OUTPUT);
    expect(await session.run('print("back")\nkept')).toBe(`back\nTraceback (most recent call last):\n    kept\nNameError: name 'kept' is not defined\n${SESSION_LOST_WARNING}`);
    expect(await session.run('1 + 1')).toBe('2');
    const verified = (await session.post('/verify', verifyBody('\\boxed{42}'))).json<Record<string, any>>();
    expect(verified).toMatchObject({ num_tool_calls: 4, tool_timeout_count: 0, tool_request_timeout_count: 1 });
  }, 30_000);

  it('contains hostile code: no network, no host files, no signals to the grader, no way out of the session', async () => {
    const session = rollout(gym);
    const connect = 'import socket\ntry:\n    socket.create_connection(("1.1.1.1", 80), timeout=1)\n    print("connected")\nexcept OSError as error:\n    print("refused", type(error).__name__)';
    expect(await session.run(connect)).toMatch(/^refused /);
    expect(await session.run(`import os\nos.path.exists(${JSON.stringify(PACKAGE_ROOT)}), os.path.exists("/etc/shadow"), os.path.exists("/root")`)).toBe('(False, False, False)');
    expect(await session.run('import os, signal\ntry:\n    os.kill(1, signal.SIGKILL)\nexcept OSError as error:\n    print(type(error).__name__)\nos.getpid() != 1')).toMatch(/True$/);
    expect(await session.run('import subprocess\nsubprocess.run(["sh", "-c", "echo hidden"]).returncode')).toBe('0');
    expect(await session.run('blob = bytearray(3 * 1024 ** 3)')).toMatch(/\nMemoryError$/);
    expect(await session.run('open("/usr/planted", "w")')).toMatch(/\n(OSError|PermissionError): \[Errno 30\] Read-only file system: '\/usr\/planted'$/);
    expect(await session.run('input()')).toBe('Traceback (most recent call last):\n    input()\nEOFError: EOF when reading a line');
    expect(await session.run('import sys\nsys.exit(3)')).toMatch(/SystemExit: 3/);
    expect(await session.run('still = "here"\nstill')).toBe("'here'");
  });

  it('restarts a session whose code ended its interpreter, and warns that its state is gone', async () => {
    const session = rollout(gym);
    await session.run('kept = 1');
    expect(JSON.parse(await session.run('import os\nos._exit(0)'))).toEqual({ error: expect.stringMatching(/^The Python process ended during the call \(exited \(exit code 0\)\)/) });
    expect(await session.run('2 + 2')).toBe(`4\n${SESSION_LOST_WARNING}`);
  });

  it('answers a call it cannot run with an error object, as upstream: an unknown tool, arguments that are not JSON or have no code', async () => {
    const session = rollout(gym);
    const unknown = await session.post('/no_such_tool', { code: '1' });
    expect([unknown.status, unknown.text]).toEqual([200, '{"error": "Unknown tool: no_such_tool"}']);
    const notJson = await session.post(`/${PYTHON_TOOL_NAME}`, '{"code": ');
    expect([notJson.status, notJson.text]).toEqual([200, '{"error": "Expecting value: line 1 column 10 (char 9)"}']);
    for (const body of [{ source: '1' }, { code: 5 }, ['1']]) {
      const reply = await session.post(`/${PYTHON_TOOL_NAME}`, body);
      expect([reply.status, JSON.parse(reply.text).error]).toEqual([200, expect.stringMatching(/^Invalid arguments for stateful_python_code_exec: it takes an object with a string 'code'/)]);
    }
  });

  it('verifies through math_with_judge with the rollout’s tool metrics, then ends the rollout’s interpreter', async () => {
    const session = rollout(gym);
    await session.run('answer = 6 * 7');
    await session.run('while True:\n    pass');
    const verified = (await session.post('/verify', verifyBody('So it is \\boxed{42}.', { id: 'task-1' }))).json<Record<string, any>>();
    expect(verified).toMatchObject({ reward: 1, id: 'task-1', verifier_type: null, num_tool_calls: 2, tool_timeout_count: 1, tool_request_timeout_count: 0 });
    expect(verified.total_tool_execution_time_seconds).toBeGreaterThan(2);
    expect(verified.avg_tool_call_time_seconds).toBeCloseTo(verified.total_tool_execution_time_seconds / 2);
    expect(verified.delegated_response).toMatchObject({ reward: 1, expected_answer: '42', extracted_answer: '42', library_reward: 1, judge_evaluations: null });
    expect(await session.run('answer')).toMatch(/NameError: name 'answer' is not defined$/);
    // The metrics went with the verify: a second one counts nothing.
    expect((await session.post('/verify', verifyBody('\\boxed{41}'))).json<Record<string, any>>()).toMatchObject({ reward: 0, num_tool_calls: 1 });
  });
});

describe.skipIf(unavailable === null)('ns_tools in the sandbox', () => {
  it.skip(`skipped: ${unavailable ?? ''}`, () => {});
});

describe.skipIf(unavailable !== null)('ns_tools with session restore', () => {
  it('replays a session’s earlier cells into the interpreter that replaces one that ended', async () => {
    const gym = await startInProcessGym({ config: gymConfig(toolConfig({ disable_session_restore: false })), definitions: { judge_model: judge.definition } });
    try {
      const session = rollout(gym);
      await session.run('import math\nkept = math.factorial(4)');
      await session.run('kept = kept + 1');
      expect(JSON.parse(await session.run('import os\nos._exit(1)')).error).toMatch(/exit code 1/);
      expect(await session.run('kept, math.pi > 3')).toBe('(25, True)');
    } finally {
      await gym.close();
    }
  });
});

describe('ns_tools verify, delegated', () => {
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({ config: gymConfig({}), definitions: { judge_model: judge.definition } });
  });
  afterAll(async () => gym?.close());
  const verify = (body: Record<string, unknown>) => http.request(gym.url('ns_tools', '/verify'), { body });

  it('uses the row’s verifier_type, else default_verifier (an empty one too, as Python’s `or`)', async () => {
    const judged = (await verify(verifyBody('\\boxed{forty-two}', { verifier_type: 'judged' }))).json<Record<string, any>>();
    expect(judged).toMatchObject({ reward: 1, verifier_type: 'judged', delegated_response: { library_reward: 0, judge_evaluations: [expect.anything(), expect.anything()] } });
    expect((await verify(verifyBody('\\boxed{forty-two}', { verifier_type: '' }))).json<Record<string, any>>()).toMatchObject({ reward: 0, verifier_type: '' });
    const answeredTool = verifyBody('\\boxed{42}', {}, [functionCall(PYTHON_TOOL_NAME, { code: '6 * 7' }, 'call_1'), { type: 'function_call_output', call_id: 'call_1', output: '42' } as ResponseItem]);
    expect((await verify(answeredTool)).json<Record<string, any>>()).toMatchObject({ reward: 1 });
  });

  it('scores a judge’s nonsense verdict 0, as math_with_judge does, but answers a failing judge with an error, not a reward', async () => {
    const nonsense = await verify(verifyBody('\\boxed{forty-two}', { verifier_type: 'judged', question: 'JUDGE NONSENSE' }));
    expect([nonsense.status, nonsense.json<Record<string, any>>().reward]).toEqual([200, 0]);
    const failing = await verify(verifyBody('\\boxed{forty-two}', { verifier_type: 'judged', question: 'JUDGE FAILS' }));
    expect(failing.status).toBeGreaterThanOrEqual(500);
    expect(failing.text).not.toContain('"reward"');
  });

  it('refuses a row the verifier refuses, naming its field, and a verifier it does not have', async () => {
    const { expected_answer: _dropped, ...withoutAnswer } = verifyBody('\\boxed{42}');
    const missing = await verify(withoutAnswer);
    expect(missing.status).toBe(422);
    expect(missing.json<{ detail: { loc: string[] }[] }>().detail.map((detail) => detail.loc)).toEqual([['body', 'expected_answer']]);
    const unknown = await verify(verifyBody('\\boxed{42}', { verifier_type: 'mcqa' }));
    expect(unknown.status).toBe(422);
    expect(unknown.json<{ detail: { loc: string[]; msg: string }[] }>().detail).toEqual([
      expect.objectContaining({ loc: ['body', 'verifier_type'], msg: "Unknown verifier: mcqa. Configure it in 'verifiers' or check 'default_verifier'." }),
    ]);
    expect((await verify(verifyBody('\\boxed{42}', { verifier_type: 7 }))).status).toBe(422);
  });
});
