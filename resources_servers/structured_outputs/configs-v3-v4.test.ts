/**
 * 0.7.0's structured_outputs_v3 and _v4 configs: each starts with its instance names and agents, and a collection
 * over its example data, routed by the rows' agent_ref, scores every row 1 with a scripted policy giving the right
 * answer (text in the row's format for v3, the tool call for v4) and 0 with the error named for a wrong one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ResponseItem } from 'ngym';
import { collectRollouts, PACKAGE_ROOT } from 'ngym/runtime';
import {
  assistantMessage,
  functionCall,
  type InProcessGym,
  readJsonlRows,
  scriptedModel,
  startInProcessGym,
} from 'ngym/testing';

const data = (file: string) => join(PACKAGE_ROOT, 'resources_servers/structured_outputs/data', file);

/** What the policy answers, by the row's source_record_id. */
const RIGHT: Record<string, ResponseItem[]> = {
  'NGYM-V3-001': [assistantMessage('{"name": "Harbor Lantern Bakery", "founded": 1987, "town": "Westmere", "specialties": ["rye sourdough", "cardamom knots"], "owner": "Ilse Maren"}')],
  'NGYM-V3-002': [assistantMessage('river: Selva Brook\nlength_km: 42.5\nmouth: Lake Orrin\ntributaries:\n  - Mill Run\n  - Cold Fork\n')],
  'NGYM-V3-003': [assistantMessage('<lighthouse><name>Cape Wren Light</name><height_m>31</height_m><lit>1872</lit><automated>true</automated></lighthouse>')],
  'NGYM-V3-004': [assistantMessage('club = "Northgate Chess Circle"\nmembers = 58\n\n[meets]\nday = "Thursday"\nplace = "public library, back room"\n')],
  'NGYM-V3-005': [assistantMessage('train,departs,platform\nCoastal Express,07:10,2\nValley Local,07:45,5\nAirport Shuttle,08:05,\n')],
  'NGYM-V4-001': [functionCall('response_tool_2', { extraction: { name: 'Harbor Lantern Bakery', founded: 1987, town: 'Westmere', specialties: ['rye sourdough'], owner: null } }, 'c1')],
  'NGYM-V4-002': [functionCall('summary_tool_1', { river: 'Selva Brook', length_km: 42.5, mouth: 'Lake Orrin', tributaries: ['Mill Run', 'Cold Fork'] }, 'c1')],
  'NGYM-V4-003': [
    functionCall('summary_tool_4', { result: [{ train: 'Coastal Express', departs: '07:10', platform: 2 }, { train: 'Valley Local', departs: '07:45', platform: 5 }, { train: 'Airport Shuttle', departs: '08:05', platform: null }] }, 'c1'),
  ],
  'NGYM-V4-004': [functionCall('response_tool_7', { extraction: { club: 'Northgate Chess Circle', members: 58, meets: { day: 'Thursday', place: 'library' } } }, 'c1')],
  'NGYM-V4-005': [functionCall('response_tool_3', { extraction: { name: 'Cape Wren Light', height_m: 31, lit: 1872, automated: true } }, 'c1')],
};
const WRONG: Record<string, [ResponseItem[], string]> = {
  'NGYM-V3-001': [[assistantMessage('```json\n{"name": "Harbor Lantern Bakery"}\n```')], 'parse_error'],
  'NGYM-V3-004': [[assistantMessage('club = "Northgate Chess Circle"\nmembers = "58"\n\n[meets]\nday = "Thursday"\nplace = "library"\n')], 'validation_error'],
  'NGYM-V4-001': [[functionCall('response_tool_1', { extraction: { title: 'Harbor Lantern Bakery' } }, 'c1')], 'wrong_tool_name'],
  'NGYM-V4-002': [[assistantMessage('{"river": "Selva Brook"}')], 'missing_tool_call'],
  'NGYM-V4-004': [[functionCall('response_tool_7', { club: 'Northgate Chess Circle', members: 58 }, 'c1')], 'missing_tool_payload_key'],
  'NGYM-V4-005': [[functionCall('response_tool_3', '{"extraction": {"name": "Cape Wren', 'c1')], 'tool_arguments_parse_error'],
};

describe.each([
  { version: 'v3', agent: 'structured_outputs_v3_simple_agent', implementation: 'simple_agent', environmentServer: 'structured_outputs_v3_environment_server' },
  { version: 'v4', agent: 'structured_outputs_v4_simple_agent', implementation: 'non_executing_simple_agent', environmentServer: 'structured_outputs_v4_simple_environment_server' },
])('structured_outputs_$version config', ({ version, agent, implementation, environmentServer }) => {
  const examplePath = data(`structured_outputs_${version}_example.jsonl`);
  const rows = readJsonlRows(examplePath);
  const idOf = (input: unknown) => rows.find((row) => JSON.stringify(row.responses_create_params.input) === JSON.stringify(input))?.source_record_id as string;

  let answers: (id: string) => ResponseItem[] = () => [];
  const policy = scriptedModel(({ params }) => answers(idOf(params.input)));
  let gym: InProcessGym;
  beforeAll(async () => {
    gym = await startInProcessGym({
      overrides: [`+config_paths=[resources_servers/structured_outputs/configs/structured_outputs_${version}.yaml]`, '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
      definitions: { policy_model: policy.definition },
    });
  });
  afterAll(async () => gym?.close());

  async function collect(answer: typeof answers) {
    answers = answer;
    policy.calls.length = 0;
    const outputPath = join(mkdtempSync(join(tmpdir(), `ngym-so-${version}-`)), 'rollouts.jsonl');
    const summary = await collectRollouts({ client: gym.client, input: examplePath, outputPath, ordered: true, maxRetries: 0 }).done();
    return { summary, rollouts: readJsonlRows(outputPath) };
  }

  it(`starts with upstream's instance names; the example rows name ${agent}, whose example dataset they are`, async () => {
    const config = gym.globalConfig;
    expect(config.server('structured_outputs')?.impl).toBe('structured_outputs');
    expect(config.server(agent)?.impl).toBe(implementation);
    expect(config.server(environmentServer)?.config.agent_server).toEqual({ type: 'responses_api_agents', name: agent });
    const datasets = config.server(agent)?.config.datasets as { type: string; jsonl_fpath: string }[];
    expect(datasets.find((dataset) => dataset.type === 'example')?.jsonl_fpath).toBe(`resources_servers/structured_outputs/data/structured_outputs_${version}_example.jsonl`);
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((row) => row.agent_ref.name))).toEqual(new Set([agent]));
  });

  it('scores every example row 1 with the right answers, in one model call each', async () => {
    const { summary, rollouts } = await collect((id) => RIGHT[id] as ResponseItem[]);
    expect(summary).toMatchObject({ completed: rows.length, failed: 0 });
    expect(rollouts.map((rollout) => [rollout.source_record_id, rollout.reward, rollout.error_type])).toEqual(rows.map((row) => [row.source_record_id, 1, null]));
    expect(policy.calls).toHaveLength(rows.length);
    if (version === 'v4') expect(rollouts.every((rollout) => rollout.response.output.every((item: ResponseItem) => item.type === 'function_call'))).toBe(true);
  });

  it('scores wrong answers 0 with the error named', async () => {
    const { rollouts } = await collect((id) => WRONG[id]?.[0] ?? (RIGHT[id] as ResponseItem[]));
    const wrong = rollouts.filter((rollout) => rollout.source_record_id in WRONG);
    expect(wrong.length).toBeGreaterThanOrEqual(2);
    for (const rollout of wrong) expect([rollout.reward, rollout.error_type]).toEqual([0, WRONG[rollout.source_record_id]?.[1]]);
    expect(rollouts.filter((rollout) => !(rollout.source_record_id in WRONG)).every((rollout) => rollout.reward === 1)).toBe(true);
  });
});
