/**
 * The catalog's reading of recordings, configs and `ngym run`'s output: matching rollouts to tasks, comparing them,
 * the reasons told from error output, and the plan of an upstream server (from the wheel when it is installed).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';
import { buildsIn, serverRowsIn } from './gym-session.ts';
import { inputRows, type ServerResult } from './check-resources-server.ts';
import { compareWithRecording, differences, recordedModelReplies, repeatedInputs, rewardProfile, sharedInputs } from './recordings.ts';
import { downloadHost, missingWheelData, nonPypiRequirementHost, placeholderDistribution, refusedConfig, replayDivergence, runtimeReason, startFailureReason, unsetDataVariable } from './reasons.ts';
import { renderCatalog, summaryOf } from './render.ts';
import { checkRewardRange, descriptionRange } from './reward-range.ts';
import { companionConfigs, instancesOf, modelReferences, planResourcesServer } from './upstream-servers.ts';

const task = (question: string, extra: Record<string, unknown> = {}) => ({ responses_create_params: { input: [{ role: 'user', content: question }] }, ...extra });
const rollout = (question: string, reward: number, extra: Record<string, unknown> = {}) => ({
  responses_create_params: { input: [{ role: 'user', content: question }, { role: 'user', content: 'observation added by the agent' }] },
  response: { output: [] },
  reward,
  ...extra,
});

describe('comparing rollouts with a recording', () => {
  const examples = [task('q1'), task('q2')];

  it('matches rollouts to their task by input prefix and counts the equal ones, in any order', () => {
    const recorded = [rollout('q1', 1, { extracted: 'A', _ng_task_index: 7 }), rollout('q2', 0, { extracted: 'B' })];
    const results = [rollout('q2', 0, { extracted: 'B', _ng_task_index: 1 }), rollout('q1', 1, { extracted: 'A', _ng_task_index: 0 })];
    const comparison = compareWithRecording(examples, recorded, results);
    expect(comparison).toMatchObject({ equal: 2, total: 2, results: 2, unmatched: 0, differing: [] });
  });

  it('pairs rollouts of one task given several times in the input with any of its recorded rollouts', () => {
    const given = [task('q1'), task('q2'), task('q1')];
    const recorded = [rollout('q1', 1), rollout('q1', 1), rollout('q2', 0)];
    const results = [rollout('q1', 1, { _ng_task_index: 0 }), rollout('q2', 0, { _ng_task_index: 1 }), rollout('q1', 1, { _ng_task_index: 2 })];
    expect(compareWithRecording(given, recorded, results)).toMatchObject({ equal: 3, total: 3, differing: [] });
  });

  it('names the differing reward and verify fields of a rollout', () => {
    const recorded = [rollout('q1', 1, { extracted: 'A' }), rollout('q2', 0, { extracted: 'B' })];
    const results = [rollout('q1', 0, { extracted: 'C' }), rollout('q2', 0, { extracted: 'B' })];
    const comparison = compareWithRecording(examples, recorded, results);
    expect(comparison.equal).toBe(1);
    expect(comparison.differing).toEqual([
      {
        task: 0,
        differences: [
          { field: 'reward', recorded: 1, result: 0 },
          { field: 'extracted', recorded: 'A', result: 'C' },
        ],
        fields: 2,
      },
    ]);
  });

  it('pairs repeats of one task with equal recorded rollouts whatever order they finish in', () => {
    const recorded = [rollout('q1', 1), rollout('q1', 0), rollout('q1', 1)];
    const results = [rollout('q1', 0), rollout('q1', 1), rollout('q1', 1)];
    expect(compareWithRecording([task('q1')], recorded, results).equal).toBe(3);
  });

  it('compares every field, nested too, and a field on one side only is a difference', () => {
    const recorded = { reward: 1, id: 3, details: { scores: [1, 2], note: 'a' }, only_recorded: 'x', response: { output: [{ type: 'function_call', arguments: '{"a":1}' }] } };
    const result = { reward: 1, id: 4, details: { scores: [1, 3, 4], note: 'a' }, response: { output: [{ type: 'function_call', arguments: '{"a": 1}' }] }, only_run: true };
    expect(differences(recorded, result)).toEqual([
      { field: 'id', recorded: 3, result: 4 },
      { field: 'details.scores[1]', recorded: 2, result: 3 },
      { field: 'details.scores[2]', recorded: undefined, result: 4 },
      { field: 'only_recorded', recorded: 'x', result: undefined },
      { field: 'response.output[0].arguments', recorded: '{"a":1}', result: '{"a": 1}' },
      { field: 'only_run', recorded: undefined, result: true },
    ]);
  });

  it("leaves out the collector's stamps, agent_ref, timings, materialized defaults and the task row's echoed fields", () => {
    const recorded = { reward: 0.5, _ng_task_index: 1, agent_ref: { name: 'benchmark_agent' }, verify_seconds: 2, responses_create_params: { input: [{ type: 'message', role: 'user', content: 'q' }], temperature: null } };
    const result = { reward: 0.5 + 1e-12, _ng_task_index: 7, agent_ref: { name: 'x_simple_agent' }, verify_seconds: 9, mask_sample: false, expected: 'A', responses_create_params: { input: [{ role: 'user', content: 'q' }] } };
    expect(differences(recorded, result, new Set(['expected']))).toEqual([]);
    // Not echoed from the task row: a difference.
    expect(differences(recorded, result)).toEqual([{ field: 'expected', recorded: undefined, result: 'A' }]);
    // A default is only a default with its value.
    expect(differences({ mask_sample: true }, {})).toEqual([{ field: 'mask_sample', recorded: true, result: undefined }]);
  });

  it('tells identical inputs apart by the other fields of their row', () => {
    const twins = [task('same', { expected: 'A' }), task('same', { expected: 'B' })];
    const recorded = [rollout('same', 1, { expected: 'B' }), rollout('same', 0, { expected: 'A' })];
    const results = [rollout('same', 0, { expected: 'A' }), rollout('same', 1, { expected: 'B' })];
    expect(compareWithRecording(twins, recorded, results).equal).toBe(2);
  });

  it('profiles the recorded rewards', () => {
    expect(rewardProfile([rollout('q1', 1), rollout('q2', 0)])).toEqual({ mean: 0.5, min: 0, max: 1, count: 2 });
  });
});

describe('model replies recorded besides the policy model\'s turns', () => {
  const fields = new Set(['question', 'responses_create_params']);
  const base = (extra: Record<string, unknown>) => ({ ...rollout('What is the capital of France?', 1), question: 'What is the capital of France?', ...extra });
  const answered = { output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Paris, the capital.' }] }] };
  const textOf = (response: unknown) => ((response as { output: { content: { text: string }[] }[] }).output[0]?.content[0]?.text);

  it('pairs a request and its response at any depth, and with a prefix (aalcr: judge_responses_create_params + judge_response)', () => {
    const row = base({
      judge_evaluations: [{ responses_create_params: { input: 'judge this' }, response: answered }],
      judge_responses_create_params: { input: 'judge that' },
      judge_response: answered,
    });
    const replies = recordedModelReplies([row], fields);
    expect(replies.byRequest).toEqual([
      { responses_create_params: { input: 'judge that' }, response: answered },
      { responses_create_params: { input: 'judge this' }, response: answered },
    ]);
    expect(replies.shapes).toEqual(['judge_evaluations.responses_create_params + response', 'judge_responses_create_params + judge_response'].map((shape) => shape.replace('judge_evaluations.', '')).sort());
  });

  it("pairs nemo_user_sim's invocations[].request + response and gdp_pdf's Chat Completions criteria", () => {
    const row = base({
      invocations: [{ sequence: 0, request: { input: [{ role: 'user', content: 'play the user' }] }, response: answered }],
      criterion_evaluations: [{ chat_create_params: { messages: [{ role: 'user', content: [{ type: 'text', text: 'grade' }] }] }, response: { id: 'chatcmpl-1', choices: [{ message: { role: 'assistant', content: 'PASS' } }], usage: { prompt_tokens: 3, completion_tokens: 1 } } }],
    });
    const { byRequest, shapes } = recordedModelReplies([row], fields);
    expect(byRequest[0]).toEqual({ responses_create_params: { input: [{ role: 'user', content: 'play the user' }] }, response: answered });
    expect(byRequest[1]?.responses_create_params).toEqual({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'grade' }] }] });
    expect(textOf(byRequest[1]?.response)).toBe('PASS');
    expect(shapes).toEqual(['criterion_evaluations.chat_create_params + response', 'invocations.request + response']);
  });

  it("keys inverse_if's judge_prompt + judge_response by the prompt", () => {
    const row = base({ rubric_evaluations: [{ judge_prompt: 'Does the answer name Paris?', judge_response: 'YES', verdict: 'yes' }] });
    const { keyed, byRequest } = recordedModelReplies([row], fields);
    expect(byRequest).toEqual([]);
    expect(keyed).toHaveLength(1);
    const entry = (keyed[0] as { keyed_replies: { keys: string[]; responses: unknown[] } }).keyed_replies;
    expect(entry.keys).toEqual(['Does the answer name Paris?']);
    expect(entry.responses.map(textOf)).toEqual(['YES']);
  });

  it('keys raw judge texts (judge_output, judge_raw, judge_text, raw_output, judgement_*) by the task, in recorded order', () => {
    const row = base({ judge_output: 'A', judge_raw: 'yes', nested: { raw_output: 'safe' } });
    const { keyed, shapes } = recordedModelReplies([row], fields);
    expect(shapes).toEqual(['judge_output', 'judge_raw', 'nested.raw_output']);
    const entry = (keyed[0] as { keyed_replies: { keys: string[]; responses: unknown[] } }).keyed_replies;
    // The task's own texts and the policy's last reply tell the task; texts too short to tell anything are left out.
    expect(entry.keys).toEqual(['What is the capital of France?', 'observation added by the agent']);
    expect(entry.responses.map(textOf)).toEqual(['A', 'yes', 'safe']);
  });

  it("gives arena_judge's two verdicts to the calls with their order of answers", () => {
    const row = { ...base({ baseline_answer: 'The capital is Paris.', judgement_gen_base: 'A is better', judgement_base_gen: 'B is better' }), response: answered };
    const { keyed } = recordedModelReplies([row], new Set([...fields, 'baseline_answer']));
    expect(keyed.map((entry) => (entry as { keyed_replies: { order?: string[] } }).keyed_replies.order)).toEqual([
      ['Paris, the capital.', 'The capital is Paris.'],
      ['The capital is Paris.', 'Paris, the capital.'],
    ]);
  });

  it("keys conversational_tool_use_simulation's simulator turns (responses[] not of the agent), each once", () => {
    const turn = (id: string, text: string) => ({ id, output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }] });
    const row = base({
      result: { trajectory: { messages: [{ source: 'user', responses: [turn('r1', 'I need help')] }, { source: 'agent', responses: [turn('r2', 'policy turn')] }, { source: 'environment', responses: [turn('r3', 'tool result')] }] } },
      judge_diagnostics: { verification: { judge_response: 'fine', responses: [turn('r4', 'fine')] } },
      copy: { verification: { responses: [turn('r4', 'fine')] } },
    });
    const { keyed, shapes } = recordedModelReplies([row], fields);
    const entry = (keyed[0] as { keyed_replies: { responses: unknown[] } }).keyed_replies;
    // In the order the row holds them (its fields' order), a reply stored twice once.
    expect(entry.responses.map(textOf)).toEqual(['I need help', 'tool result', 'fine']);
    expect(shapes).toEqual(['messages.responses[]', 'verification.responses[]']);
  });
});

describe('the rows collected', () => {
  it("are the example file's when every recorded rollout is of one of its tasks", () => {
    const examples = [task('q1', { expected: 'A' }), task('q2', { expected: 'B' })];
    expect(inputRows(examples, [rollout('q2', 1), rollout('q1', 0)])).toEqual({ rows: examples, fromRecording: 0 });
  });

  it('are one per recorded rollout, in recorded task order, when the recording holds some tasks several times', () => {
    const examples = [task('q1'), task('q2'), task('q3')];
    const recorded = [rollout('q2', 1, { _ng_task_index: 1, _ng_rollout_index: 1 }), rollout('q1', 1, { _ng_task_index: 0, _ng_rollout_index: 0 }), rollout('q2', 0, { _ng_task_index: 1, _ng_rollout_index: 0 })];
    expect(inputRows(examples, recorded)).toEqual({ rows: [examples[0], examples[1], examples[1]], fromRecording: 0 });
  });

  it("tell tasks with one input apart by the recording's _ng_task_index when it kept none of their other fields", () => {
    const examples = [task('same', { expected: 'A' }), task('same', { expected: 'B' })];
    const recorded = [rollout('same', 0, { _ng_task_index: 1, wer: 2 }), rollout('same', 1, { _ng_task_index: 0, wer: 0 })];
    expect(inputRows(examples, recorded)).toEqual({ rows: examples, fromRecording: 0 });
    const results = [rollout('same', 1, { expected: 'A', _ng_task_index: 0, wer: 0 }), rollout('same', 0, { expected: 'B', _ng_task_index: 1, wer: 2 })];
    expect(compareWithRecording(examples, recorded, results).equal).toBe(2);
    // Rows that send one input run one at a time, so replay_model answers them in task order.
    expect(repeatedInputs(examples)).toBe(true);
    expect(repeatedInputs([task('q1'), task('q2')])).toBe(false);
  });

  it("come from the recording where it was made on other tasks, with the example file's fields only", () => {
    const examples = [task('q1', { expected: 'A' })];
    const recorded = [rollout('other', 1, { expected: 'C', extracted: 'C', agent_ref: { name: 'benchmark_agent' }, _ng_task_index: 3 }), rollout('q1', 0, { expected: 'A' })];
    const { rows, fromRecording } = inputRows(examples, recorded);
    expect(fromRecording).toBe(1);
    expect(rows).toEqual([{ responses_create_params: recorded[0]?.responses_create_params, expected: 'C' }, examples[0]]);
  });

  it('tells when different tasks share one input (replay_model answers by input)', () => {
    expect(sharedInputs([task('same', { audio: 'a.wav' }), task('same', { audio: 'b.wav' })])).toBe(true);
    expect(sharedInputs([task('same'), task('same')])).toBe(false);
  });
});

describe('servers started beside the one checked', () => {
  it("are the other resources servers its config's usage comment starts with it, by their own-named config", () => {
    const site = mkdtempSync(join(tmpdir(), 'ngym-catalog-'));
    for (const name of ['tools', 'judge', 'other']) {
      mkdirSync(join(site, 'resources_servers', name, 'configs'), { recursive: true });
      writeFileSync(join(site, 'resources_servers', name, 'configs', `${name}.yaml`), `${name}: {}\n`);
    }
    const config = join(site, 'resources_servers', 'tools', 'configs', 'tools.yaml');
    writeFileSync(config, '# USAGE:\n#   gym env start --resources-server tools \\\n#   --resources-server judge --resources-server missing \\\n#   --resources-server other/variant\ntools: {}\n# not --resources-server in a value\n');
    expect(companionConfigs(site, config, 'tools')).toEqual([join(site, 'resources_servers', 'judge', 'configs', 'judge.yaml')]);
  });
});

describe("reasons told from ngym's output", () => {
  it('a mandatory value is a credential or endpoint to give', () => {
    const reason = startFailureReason('Error: Missing mandatory value `judge_model.responses_api_models.openai_model.openai_api_key` (from x.yaml:3).', { ending: 'exit 1', logPath: 'log' });
    expect(reason).toEqual({ category: 'credential', text: 'needs judge_model.responses_api_models.openai_model.openai_api_key (a credential / endpoint)' });
  });

  it("a secret the config leaves null, refused by the server's config class, is a credential to give", () => {
    const output = '(critpt_resources_server) pydantic_core._pydantic_core.ValidationError: 2 validation errors for CritPtResourcesServerConfig\n(critpt_resources_server) api_key.str\n';
    expect(startFailureReason(output, { ending: 'exit 1', logPath: 'log' })).toEqual({ category: 'credential', text: 'needs api_key (a credential / endpoint)' });
  });

  it('a failed build with a git requirement downloads from its host', () => {
    expect(nonPypiRequirementHost(['numpy', 'tale-suite @ git+https://github.com/microsoft/tale-suite.git'])).toBe('github.com');
    const reason = startFailureReason('Building the Python environment of server x (resources_servers/x) failed at `uv pip install`', { ending: 'exit 1', logPath: 'log', requirementLines: ['git+https://github.com/a/b.git'] });
    expect(reason.category).toBe('download');
  });

  it('names the host a runtime download failed on, never loopback or PyPI', () => {
    expect(downloadHost("HTTPSConnectionPool(host='huggingface.co', port=443): Max retries exceeded")).toBe('huggingface.co');
    expect(downloadHost("HTTPConnectionPool(host='127.0.0.1', port=1): Max retries exceeded")).toBeUndefined();
    expect(downloadHost("CalledProcessError: Command '['git', 'clone', '--depth=1', 'https://github.com/a/b', '/x']' returned non-zero exit status 128.")).toBe('github.com');
  });

  it('a timeout during a build says what was being installed', () => {
    const reason = startFailureReason('Python environment of x (resources_servers/x): building (torch==2.12.0)', { ending: 'timeout', logPath: 'log' });
    expect(reason).toEqual({ category: 'timeout', text: 'not ready in time while building its Python environment (torch==2.12.0) (log log)' });
  });
});

describe('reasons found by investigation', () => {
  it("an upstream agent's config class refusing upstream's config names the missing fields", () => {
    const output = [
      '(deep_agent) pydantic_core._pydantic_core.ValidationError: 2 validation errors for HarnessExaSearchConfig',
      '(deep_agent) agent',
      "(deep_agent)   Field required [type=missing, input_value={'entrypoint': 'app.py'}, input_type=dict]",
      '(deep_agent)     For further information visit https://errors.pydantic.dev/2.14/v/missing',
      '(deep_agent) image',
      "(deep_agent)   Field required [type=missing, input_value={'entrypoint': 'app.py'}, input_type=dict]",
      '(deep_agent)     For further information visit https://errors.pydantic.dev/2.14/v/missing',
      "Error: Server 'deep_agent' exited before it was ready (exit code 1)",
    ].join('\n');
    expect(refusedConfig(output)).toEqual({
      category: 'upstream-config',
      text: "upstream's deep_agent refuses the config upstream ships for it: HarnessExaSearchConfig requires agent, image, which the config does not set; it runs a harness in a container image",
    });
    expect(startFailureReason(output, { ending: 'exit 1', logPath: 'log' }).category).toBe('upstream-config');
  });

  it("a data file the wheel does not hold, with the instruction upstream's message gives", () => {
    const folder = '/site-packages/resources_servers/wordle';
    const error = `FileNotFoundError(\\'${folder}/data/guesses.txt not found. Run \`python resources_servers/wordle/generate_data.py\` first.\\')`;
    expect(missingWheelData(error, folder)).toEqual({ category: 'missing-data', text: "its data file data/guesses.txt is not in upstream's wheel: Run `python resources_servers/wordle/generate_data.py` first." });
    expect(missingWheelData('ValueError: bad row', folder)).toBeUndefined();
  });

  it("a network failure inside an installed package names the host that package's code downloads from", () => {
    const folder = join(mkdtempSync(join(tmpdir(), 'ngym-catalog-')), 'site-packages', 'evalplus', 'data');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'humaneval.py'), 'URL = "https://github.com/evalplus/humanevalplus_release/releases/download/v0.1.10/HumanEvalPlus.jsonl.gz"\n');
    const output = `(evalplus)   File "${join(folder, 'humaneval.py')}", line 26, in _ready_human_eval_plus_path\n(evalplus) urllib.error.URLError: <urlopen error [Errno -2] Name or service not known>`;
    expect(startFailureReason(output, { ending: 'exit 1', logPath: 'log' })).toEqual({ category: 'download', text: 'download from github.com (at start: the host evalplus/data/humaneval.py:1 of the failing traceback names)' });
  });

  it("a path its config leaves at /nonexistent/set-<VARIABLE> names the variable", () => {
    expect(unsetDataVariable("FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/set-VIBENCH_REPO_ROOT/prds/notes/prd/mvp.txt'")).toEqual({
      category: 'missing-data',
      text: 'needs VIBENCH_REPO_ROOT set to a checkout of its data (its config defaults to /nonexistent/set-VIBENCH_REPO_ROOT; it read /nonexistent/set-VIBENCH_REPO_ROOT/prds/notes/prd/mvp.txt)',
    });
  });

  it('a dependency whose PyPI distribution holds no module is a placeholder for a package published elsewhere', () => {
    const venv = mkdtempSync(join(tmpdir(), 'ngym-venv-'));
    const distInfo = join(venv, 'lib', 'python3.11', 'site-packages', 'human_eval_infilling-2.15.0.dist-info');
    mkdirSync(distInfo, { recursive: true });
    const output = "(code_fim) ModuleNotFoundError: No module named 'human_eval_infilling'";
    writeFileSync(join(distInfo, 'RECORD'), 'human_eval_infilling-2.15.0.dist-info/METADATA,sha256=x,128\nhuman_eval_infilling-2.15.0.dist-info/RECORD,,\n');
    expect(placeholderDistribution(output, venv)).toEqual({
      category: 'download',
      text: 'its dependency human_eval_infilling 2.15.0 from PyPI is an empty placeholder (no module human_eval_infilling): the real package is published elsewhere (not on PyPI)',
    });
    writeFileSync(join(distInfo, 'RECORD'), 'human_eval_infilling/__init__.py,sha256=x,10\n');
    expect(placeholderDistribution(output, venv)).toBeUndefined();
  });

  it('nltk data is a download from outside PyPI', () => {
    const output = "(rolemrc) LookupError: \n(rolemrc) ****\n(rolemrc)   Resource 'wordnet' not found.\n(rolemrc)   Please use the NLTK Downloader to obtain the resource:";
    expect(runtimeReason(output, 'log')).toMatchObject({ category: 'download', text: expect.stringContaining("nltk data 'wordnet'") });
  });

  it('a replay divergence on an observation tells a missing first observation from an environment that drew otherwise', () => {
    const diverged = (item: number, recorded: string) => `Replay diverged from the recording at x.jsonl:1, output item ${item}: the item sent differs from the recorded one.\n  recorded: ${recorded}\n  received: ["message","user","board"]`;
    expect(replayDivergence(diverged(0, '["function_call","call_1","noop","{}"]'))).toBe('first-observation');
    expect(replayDivergence(diverged(9, '["message","user","other board"]'))).toBe('observation');
    expect(replayDivergence(diverged(3, '["function_call_output","c",null]').replace('received: ["message","user"', 'received: ["function_call_output"'))).toBeUndefined();
  });
});

describe('environments that draw at random', () => {
  it("read the reward range a config's description declares", () => {
    expect(descriptionRange('Blackjack. Model hits or stands. Reward +1 win, 0 draw, -1 loss/bust.')).toEqual({ lower: -1, upper: 1 });
    expect(descriptionRange('Tetris in Gymnasium API style. Model emits one or more moves per turn.')).toBeUndefined();
  });

  it('pass when every row ran and scored inside the range, and say what broke it otherwise', () => {
    const range = { lower: -1, upper: 1, source: 'test' };
    expect(checkRewardRange([-1, 0, 1], 3, 0, range)).toEqual({ ok: true });
    expect(checkRewardRange([-1, 2], 2, 0, range)).toEqual({ ok: false, problem: 'rewards outside -1..1: 2' });
    expect(checkRewardRange([1], 2, 1, range)).toEqual({ ok: false, problem: '1 of 2 rows failed' });
  });

  it('are counted apart from the equal ones in the catalog', () => {
    const result = (name: string, status: ServerResult['status']): ServerResult => ({ name, kind: 'resources_servers', status, reason: status === 'equal' ? undefined : { category: 'random', text: `${name} text` } });
    const results = [result('a', 'equal'), result('b', 'in-range'), result('c', 'differs')];
    expect(summaryOf(results)).toMatchObject({ equal: 1, inRange: 1, total: 3, byReason: new Map([['random', 1]]) });
    const page = renderCatalog({ date: 'd', machine: { cpus: 2, memoryGiB: 1, os: 'x', node: 'v22' }, upstream: 'u', results });
    expect(page).toContain('**1 of 3 resources servers equal their recordings under strict replay, every field compared.**');
    expect(page).toContain('1 more draw at random');
    expect(page).toContain('| b |');
    expect(page).toContain('in range: b text');
    expect(page).not.toContain('**The container rows**');
  });

  it('say which container rows run here now when there are such rows', () => {
    const results: ServerResult[] = [{ name: 'job_bench', kind: 'resources_servers', status: 'failed', reason: { category: 'container', text: 'needs a sandbox provider' } }];
    const page = renderCatalog({ date: 'd', machine: { cpus: 2, memoryGiB: 1, os: 'x', node: 'v22' }, upstream: 'u', results });
    expect(page).toContain('**The container rows**');
    expect(page).toMatch(/\| job_bench \| yes, with `configs\/upstream_containers\/docker_local_images.yaml`/);
  });
});

describe("reading ngym run's output", () => {
  const output = [
    'Python environment of grl_tetris (resources_servers/grl_tetris): built in 12.5 s',
    'Head server: http://127.0.0.1:4000',
    'instance                  type                  implementation   url                     pid   runs',
    '------------------------  --------------------  ---------------  ----------------------  ----  ------',
    'grl_tetris                resources_servers     grl_tetris       http://127.0.0.1:40659  8648  Python /site-packages/resources_servers/grl_tetris',
    'policy_model              responses_api_models  replay_model     http://127.0.0.1:38199  8654  TypeScript',
    'All 2 / 2 servers ready. Press Ctrl-C to stop.',
  ].join('\n');

  it('reads the builds and the runs column', () => {
    expect(buildsIn(output)).toEqual([{ folder: 'resources_servers/grl_tetris', seconds: 12.5 }]);
    expect(serverRowsIn(output)).toEqual([
      { instance: 'grl_tetris', type: 'resources_servers', impl: 'grl_tetris', runs: 'Python /site-packages/resources_servers/grl_tetris' },
      { instance: 'policy_model', type: 'responses_api_models', impl: 'replay_model', runs: 'TypeScript' },
    ]);
  });
});

describe('upstream configs', () => {
  it('finds instances and the model servers they name', () => {
    const config = {
      judge: { resources_servers: { judge: { judge_model_server: { type: 'responses_api_models', name: 'judge_model' } } } },
      judge_agent: { responses_api_agents: { simple_agent: { model_server: { type: 'responses_api_models', name: 'policy_model' } } } },
    };
    expect(instancesOf(config).map((instance) => `${instance.name}:${instance.kind}/${instance.impl}`)).toEqual(['judge:resources_servers/judge', 'judge_agent:responses_api_agents/simple_agent']);
    expect([...modelReferences(config)]).toEqual(['judge_model', 'policy_model']);
  });

  const wheel = upstreamWheel('blackjack');
  it.skipIf(wheel.skipReason !== null)(`plans blackjack from the wheel${wheel.skipReason === null ? '' : ` (${wheel.skipReason})`}`, () => {
    const plan = planResourcesServer(wheel.sitePackages, 'blackjack');
    expect(plan).toMatchObject({ resourcesInstance: 'blackjack', agentInstance: 'blackjack_gymnasium_agent', agentImpl: 'gymnasium_agent', otherModels: [], verifierModels: [] });
    expect(plan.config).toMatch(/resources_servers\/blackjack\/configs\/blackjack\.yaml$/);
  });
});
