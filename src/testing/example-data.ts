/**
 * An environment's example data: `data/example.jsonl` (its tasks) and `data/example_rollouts.jsonl` (their
 * rollouts, the agent's `/run` answers). An environment records the rollouts by running its rows through
 * simple_agent and its real server with a scripted policy model (`writeExampleData`); its tests check that
 * the committed rollouts still replay with replay_model in strict mode (`replayExampleRollouts`), so a
 * change to the server that would alter a recorded tool output or reward fails there.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerDefinition } from '../server/server-definition.ts';
import { PACKAGE_ROOT } from '../util/package-root.ts';
import { type InProcessGym, startInProcessGym } from '../gym/in-process.ts';
import { readJsonlRows } from './jsonl-rows.ts';
import { callServer } from './server-call.ts';

type Row = Record<string, any>;

export interface ExampleData {
  /** The environment's config, relative to the package root. */
  configPath: string;
  /** The agent instance that runs one row. */
  agent: string;
  examplePath: string;
  rolloutsPath: string;
}

const REPLAY_MODEL_CONFIG = 'responses_api_models/replay_model/configs/replay_model.yaml';

/** Where `resources_servers/<environment>` keeps its config and example data, and its `<environment>_simple_agent`. */
export function exampleData(environment: string): ExampleData {
  const data = join(PACKAGE_ROOT, 'resources_servers', environment, 'data');
  return {
    configPath: `resources_servers/${environment}/configs/${environment}.yaml`,
    agent: `${environment}_simple_agent`,
    examplePath: join(data, 'example.jsonl'),
    rolloutsPath: join(data, 'example_rollouts.jsonl'),
  };
}

/** Each row's `/run` answer, in row order. */
async function runRows(gym: InProcessGym, agent: string, rows: readonly unknown[]): Promise<Row[]> {
  const results: Row[] = [];
  for (const row of rows) results.push(await callServer(gym, agent, '/run', row));
  return results;
}

/** Runs `rows` through the agent with `policyModel` serving `policy_model`; the rollouts (the `/run` answers). */
export async function recordExampleRollouts(data: ExampleData, rows: readonly unknown[], policyModel: ServerDefinition): Promise<Row[]> {
  const gym = await startInProcessGym({
    overrides: [`+config_paths=[${data.configPath}]`, '++policy_model={responses_api_models: {scripted: {entrypoint: app.ts}}}'],
    definitions: { policy_model: policyModel },
  });
  try {
    return await runRows(gym, data.agent, rows);
  } finally {
    await gym.close();
  }
}

const toJsonl = (rows: readonly unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

/** Writes `rows` to example.jsonl and their rollouts, recorded with `policyModel`, to example_rollouts.jsonl. */
export async function writeExampleData(data: ExampleData, rows: readonly unknown[], policyModel: ServerDefinition): Promise<void> {
  const rollouts = await recordExampleRollouts(data, rows, policyModel);
  writeFileSync(data.examplePath, toJsonl(rows));
  writeFileSync(data.rolloutsPath, toJsonl(rollouts));
}

export interface ReplayedRollout {
  /** A row of example.jsonl. */
  row: Row;
  /** Its recorded rollout (the same line of example_rollouts.jsonl). */
  recorded: Row;
  /** What the agent's `/run` answers for the row now. */
  result: Row;
}

/**
 * Runs every row of example.jsonl through the agent, with replay_model in strict mode answering each model
 * call from example_rollouts.jsonl (it fails a call whose input the recording does not hold).
 */
export async function replayExampleRollouts(data: ExampleData): Promise<ReplayedRollout[]> {
  const rows = readJsonlRows(data.examplePath);
  const recorded = readJsonlRows(data.rolloutsPath);
  if (recorded.length !== rows.length) throw new Error(`${data.rolloutsPath} holds ${recorded.length} rollouts for the ${rows.length} rows of ${data.examplePath}`);
  const gym = await startInProcessGym({
    overrides: [
      `+config_paths=[${data.configPath},${REPLAY_MODEL_CONFIG}]`,
      `+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=${data.rolloutsPath}`,
      '+policy_model.responses_api_models.replay_model.strict=true',
    ],
  });
  try {
    const results = await runRows(gym, data.agent, rows);
    return rows.map((row, index) => ({ row, recorded: recorded[index] as Row, result: results[index] as Row }));
  } finally {
    await gym.close();
  }
}
