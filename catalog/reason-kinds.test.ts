/**
 * One test per kind of reason the catalog gives, each on the fixture server folder made for it
 * (catalog/__fixtures__/site-packages/: a wheel's layout in miniature), or on the output a failing run prints where the
 * reason is read from output.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DiffContext, unreplayableRow, whyDiffers, withKnownLicenses } from './check-resources-server.ts';
import { readRows, type Row } from './recordings.ts';
import { firstDivergence, hostInTraceback, missingWheelData, refusedConfig, replayDivergence, startFailureReason } from './reasons.ts';
import { planResourcesServer, sandboxProviderOf, serverFolders } from './upstream-servers.ts';

const SITE = join(import.meta.dirname, '__fixtures__', 'site-packages');
const folder = (name: string) => join(SITE, 'resources_servers', name);
const rowsOf = (name: string) => {
  const read = readRows(join(folder(name), 'data', 'example_rollouts.jsonl'));
  if (!('rows' in read)) throw new Error(read.problem);
  return read.rows;
};

/** What whyDiffers is given, for a run whose rollouts came back or failed as stated. */
function context(overrides: Partial<DiffContext>): DiffContext {
  return {
    run: { code: '0', output: '' },
    failed: [],
    comparison: { equal: 0, total: 2, results: 2, differing: [], unmatched: 0 },
    gymOutput: '',
    plan: planResourcesServer(SITE, 'no_agent'),
    log: 'log',
    timedOut: false,
    sharedInputs: false,
    hasMediaInput: false,
    recordedModelCalls: 0,
    replyShapes: [],
    options: { sitePackages: SITE, workFolder: '/nowhere', cold: false, startTimeoutMs: 1, collectTimeoutMs: 1 },
    inputsFromRecording: 0,
    recordedTaskLines: new Set([0, 1]),
    inputCount: 2,
    ...overrides,
  };
}

describe('which folders are servers (upstream 0.7.0 discovery)', () => {
  it('a resources server is a folder whose configs declare a resources_servers block, with or without app.py', () => {
    const servers = serverFolders(SITE, 'resources_servers');
    expect(servers).toContain('library');
    expect(servers).toContain('no_agent');
    expect(servers).not.toContain('not_a_server');
    expect(servers).not.toContain('downloads');
  });
});

describe('reason kinds', () => {
  it('no-config: no config names an agent for it, after reading every place one could', () => {
    const plan = planResourcesServer(SITE, 'no_agent');
    expect(plan.agentInstance).toBeUndefined();
    expect(plan.problem).toBe("no config names an agent for it (read: its configs configs/no_agent.yaml, the agents' configs under responses_api_agents/*/configs/, benchmarks/*/, and its allowed_agents)");
  });

  it("not no-config: an agent named in an agent's configs, a benchmark's config or the server's allowed_agents", () => {
    expect(planResourcesServer(SITE, 'agent_elsewhere')).toMatchObject({ agentInstance: 'elsewhere_agent', agentImpl: 'elsewhere_agent', agentConfig: join(SITE, 'responses_api_agents/elsewhere_agent/configs/elsewhere_agent.yaml') });
    const benched = planResourcesServer(SITE, 'benched');
    expect(benched).toMatchObject({ agentInstance: 'benched_agent', resourcesInstance: 'benched_resources_server', otherModels: ['judge_model'] });
    expect(benched.companionConfigs).toEqual([join(SITE, 'benchmarks/benched/config.yaml')]);
    const allowed = planResourcesServer(SITE, 'sandboxed');
    expect(allowed).toMatchObject({ agentInstance: 'sandboxed_agent', overrides: ['+sandboxed_agent.responses_api_agents.sandboxed_agent.resources_server.name=sandboxed_resources_server'] });
  });

  it('container: the sandbox provider its configs set, inline (followed through config_paths) or by name', () => {
    expect(sandboxProviderOf(SITE, [join(folder('opensandboxed'), 'configs', 'opensandboxed.yaml')])).toBe(
      'an opensandbox server (benchmarks/opensandboxed/resources.yaml sets sandbox_provider: opensandbox, at ${oc.env:OPENSANDBOX_DOMAIN,localhost})',
    );
    expect(sandboxProviderOf(SITE, [join(folder('sandboxed'), 'configs', 'sandboxed.yaml')])).toMatch(/^a sandbox provider: resources_servers\/sandboxed\/configs\/sandboxed\.yaml sets sandbox_provider: sandbox, the name of a top-level block/);
    expect(sandboxProviderOf(SITE, [join(folder('no_agent'), 'configs', 'no_agent.yaml')])).toBeUndefined();
    // A run that timed out waiting on it says so, not "not finished in time".
    const plan = planResourcesServer(SITE, 'opensandboxed');
    expect(whyDiffers(context({ plan, timedOut: true, comparison: { equal: 0, total: 2, results: 0, differing: [], unmatched: 0 } }))).toEqual({
      category: 'container',
      text: 'needs an opensandbox server (benchmarks/opensandboxed/resources.yaml sets sandbox_provider: opensandbox, at ${oc.env:OPENSANDBOX_DOMAIN,localhost}): ngym collect did not finish in time, its rollouts waiting on a sandbox (log log)',
    });
  });

  it('download: the host a failed name lookup names (an installer the server runs), while running or at start', () => {
    const output = [
      '(browser) RuntimeError: Could not install Playwright Chromium, which the local browser backend needs. `python -m playwright install chromium` exited 1.',
      '(browser) Error: getaddrinfo ENOTFOUND cdn.playwright.dev',
    ].join('\n');
    expect(startFailureReason(output, { ending: 'exit 1', logPath: 'log' })).toEqual({ category: 'download', text: 'download from cdn.playwright.dev' });
    expect(startFailureReason('Error: getaddrinfo ENOTFOUND localhost', { ending: 'exit 1', logPath: 'log' }).category).not.toBe('download');
  });

  it('download: the host of the failing code path (near the line that ran), not the first host its code names', () => {
    const helpers = join(folder('downloads'), 'helpers.py');
    const line = readFileSync(helpers, 'utf8').split('\n').findIndex((text) => text.includes('return download(url)')) + 1;
    const traceback = `Traceback (most recent call last):\n  File "${helpers}", line ${line}, in fetch_browser\nurllib.error.URLError: <urlopen error [Errno -2] Name or service not known>`;
    // A path inside site-packages is shown from there.
    const shown = helpers.replace(`${SITE}/`, '');
    expect(hostInTraceback(traceback.replaceAll(SITE, '/venv/lib/python3.11/site-packages'))).toBeUndefined();
    expect(hostInTraceback(traceback)).toEqual({ host: 'cdn.browsers.example.net', file: shown, line: line - 1 });
    expect(startFailureReason(traceback, { ending: 'exit 1', logPath: 'log' })).toEqual({ category: 'download', text: `download from cdn.browsers.example.net (at start: the host ${shown}:${line - 1} of the failing traceback names)` });
  });

  it('no-recording: a recording empty of requests, of replies, holding task inputs only, or in another shape', () => {
    expect(unreplayableRow(rowsOf('empty_recording'))).toBe(
      "its recording is empty of requests: row 1's responses_create_params.input is empty and its response.output too, so no request the agent sends can be matched to it",
    );
    expect(unreplayableRow(rowsOf('no_replies'))).toBe("its recording is empty of replies: row 1's response.output is empty (no model reply to replay)");
    expect(unreplayableRow(rowsOf('inputs_only'))).toBe('its recording holds task inputs, not rollouts: row 1 has no response.output (no model reply to replay)');
    expect(unreplayableRow(rowsOf('other_shape'))).toBe(
      'its recording holds no rollouts in the shape replay answers from: row 1 has no responses_create_params.input and no response.output (its fields: provenance_id, policy_response, answer_judgment, reward)',
    );
  });

  it('not a reason: a dataset license value no validation accepts is loaded as TBD and listed', () => {
    const work = mkdtempSync(join(tmpdir(), 'ngym-catalog-license-'));
    const copy = withKnownLicenses(join(folder('licensed'), 'configs', 'licensed.yaml'), work);
    expect(copy?.refused).toBe('license CC-BY-SA-4.0');
    const text = readFileSync(copy?.config as string, 'utf8');
    expect(text).toContain('license: TBD');
    expect(text).toContain('license: MIT');
    expect(withKnownLicenses(join(folder('no_agent'), 'configs', 'no_agent.yaml'), work)).toBeUndefined();
  });

  it('missing-data: a data file under its folder the wheel does not hold', () => {
    const path = `${folder('needs_data')}/data/db.json`;
    expect(missingWheelData(`FileNotFoundError: [Errno 2] No such file or directory: '${path}'`, folder('needs_data'))).toEqual({ category: 'missing-data', text: "its data file data/db.json is not in upstream's wheel" });
    expect(missingWheelData(`FileNotFoundError: '${folder('needs_data')}/app.py'`, folder('needs_data'))).toBeUndefined();
  });

  it('diverges: strict replay names the first step where the run parted from the recording', () => {
    const error = `http://127.0.0.1:1/run answered HTTP 500: "{\\"detail\\":\\"Replay diverged from the recording at ${SITE}/resources_servers/x/data/example_rollouts.jsonl:3, output item 4: the tool output sent differs from the recorded one.\\\\n  recorded: [\\"function_call_output\\",\\"call_1\\",\\"72F\\"]\\\\n  received: [\\"function_call_output\\",\\"call_1\\",\\"73F\\"]\\"}"`;
    const expected = 'strict replay diverges at resources_servers/x/data/example_rollouts.jsonl:3, step 4 (output item 4): the tool output sent differs from the recorded one (recorded ["function_call_output","call_1","72F"]; sent ["function_call_output","call_1","73F"])';
    expect(firstDivergence(error, SITE)).toBe(expected);
    const failed: Row[] = [{ error }, { error }];
    expect(whyDiffers(context({ failed, comparison: { equal: 0, total: 2, results: 0, differing: [], unmatched: 0 } }))).toEqual({ category: 'diverges', text: `${expected}: 2 of 2 rollouts failed` });
    expect(firstDivergence('Replay diverged from the recording at /r.jsonl:2: this request is call 3 for its task, and the recording holds 2 replies for it.', SITE)).toBe(
      'a model besides the policy is called more often than recorded: call 3 for a task whose recording (/r.jsonl:2) holds 2 replies',
    );
  });

  it('random: the observations differ after the same replies (it drew otherwise)', () => {
    const error = 'Replay diverged from the recording at x.jsonl:1, output item 9: the item sent differs from the recorded one.\n  recorded: ["message","user","board A"]\n  received: ["message","user","board B"]';
    expect(replayDivergence(error)).toBe('observation');
    expect(whyDiffers(context({ failed: [{ error }], comparison: { equal: 1, total: 2, results: 1, differing: [], unmatched: 0 } })).category).toBe('random');
  });

  it('judge: a model call besides the policy with no recorded reply', () => {
    const plan = { ...planResourcesServer(SITE, 'benched'), verifierModels: ['judge_model'] };
    const reason = whyDiffers(context({ plan, gymOutput: '(judge_model) No recorded rollout starts with this input', comparison: { equal: 1, total: 2, results: 2, differing: [{ task: 0, differences: [{ field: 'reward', recorded: 1, result: 0 }], fields: 1 }], unmatched: 0 } }));
    expect(reason).toEqual({ category: 'judge', text: "a model call besides the policy's (judge_model) has no recorded reply, so verification scored without it: 1 of 2 rollouts equal the recording" });
  });

  it('differs: fields the run writes that an older recording lacks, and requests recorded with other parameters', () => {
    const newer = whyDiffers(context({ comparison: { equal: 0, total: 1, results: 1, differing: [{ task: 0, differences: [{ field: 'failure_kind', recorded: undefined, result: 'none' }], fields: 1 }], unmatched: 0 } }));
    expect(newer).toEqual({ category: 'differs', text: "its rollouts hold fields its recording does not (failure_kind: a verifier newer than the recording's writes them), every recorded field equal: 0 of 1 rollouts equal the recording" });
    const sampled = whyDiffers(context({ comparison: { equal: 0, total: 1, results: 1, differing: [{ task: 0, differences: [{ field: 'responses_create_params.temperature', recorded: 0.7, result: undefined }], fields: 1 }], unmatched: 0 } }));
    expect(sampled.text).toBe("its recording's requests carry other parameters than its task rows (responses_create_params.temperature: 0.7 recorded, absent in the run's), every other field equal: 0 of 1 rollouts equal the recording");
    const other = whyDiffers(context({ comparison: { equal: 0, total: 1, results: 1, differing: [{ task: 0, differences: [{ field: 'extracted', recorded: 'A', result: 'B' }], fields: 1 }], unmatched: 0 } }));
    expect(other).toEqual({ category: 'differs', text: '0 of 1 rollouts equal the recording; differing: extracted' });
  });

  it('timeout, error: what is left when nothing more specific explains it', () => {
    expect(whyDiffers(context({ timedOut: true, comparison: { equal: 0, total: 2, results: 0, differing: [], unmatched: 0 } }))).toEqual({ category: 'timeout', text: 'ngym collect did not finish in time (log log)' });
    expect(whyDiffers(context({ failed: [{ error: 'ValueError: bad row' }], comparison: { equal: 1, total: 2, results: 1, differing: [], unmatched: 0 } }))).toEqual({ category: 'error', text: '1 of 2 rollouts failed: ValueError: bad row (log log)' });
  });

  it('credential, gpu, build, upstream-config: read from what a failed start printed', () => {
    expect(startFailureReason('Error: Missing mandatory value `x.api_key`', { ending: 'exit 1', logPath: 'log' }).category).toBe('credential');
    expect(startFailureReason('(policy_model)     from vllm.entrypoints.openai.api_server import (', { ending: 'exit 1', logPath: 'log' }).category).toBe('gpu');
    expect(startFailureReason('Building the Python environment of server x (resources_servers/x) failed\n  × No solution found when resolving dependencies', { ending: 'exit 1', logPath: 'log' })).toMatchObject({ category: 'build' });
    const refused = ['(a) pydantic_core._pydantic_core.ValidationError: 1 validation error for HarnessConfig', '(a) image', '(a)   Field required [type=missing]', '(a)     For further information visit x'].join('\n');
    expect(refusedConfig(refused)?.category).toBe('upstream-config');
  });
});
