/**
 * The data checks `ngym test` runs on a resources server (upstream `ng_test` data validation, spec
 * gym-core 7.1): `data/example.jsonl` has 5 rows, `data/example_metrics.json` counts 5 examples, no
 * `data/*conflict*` file is left, and `data/example_rollouts.jsonl` has 5 rollouts. We also check that
 * every example row is a valid dataset row, which upstream left to prepare-data, and that the committed
 * metrics are those of the committed rows (what prepare-data would otherwise report as a conflict).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetConfig } from '../config/schemas.ts';
import { formatInvalidRow, readDatasetLines } from './dataset-rows.ts';
import { diffMetrics } from './metrics-conflicts.ts';
import { computeDatasetMetrics, datasetMetricsFile } from './prepare-data.ts';

export const EXAMPLE_ROWS = 5;

/** Lines as Python's `readlines()` counts them: newline-terminated ones plus an unterminated last one. */
export function countLines(text: string): number {
  if (text === '') return 0;
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) count++;
  return text.endsWith('\n') ? count : count + 1;
}

/** Problems with a resources server's data folder, each with what to run to fix it; empty when valid. */
export async function environmentDataProblems(serverDir: string, displayDir = serverDir): Promise<string[]> {
  const problems: string[] = [];
  const data = join(serverDir, 'data');
  const shown = (name: string) => `${displayDir}/data/${name}`;
  const configHint = `"+config_paths=[${displayDir}/configs/<config>.yaml]"`;

  const examplePath = join(data, 'example.jsonl');
  if (!existsSync(examplePath)) {
    problems.push(`${shown('example.jsonl')} is missing: commit ${EXAMPLE_ROWS} example rows (usually the first ${EXAMPLE_ROWS} training rows).`);
  } else {
    const lines = countLines(readFileSync(examplePath, 'utf8'));
    if (lines !== EXAMPLE_ROWS) problems.push(`${shown('example.jsonl')} has ${lines} lines; it must have exactly ${EXAMPLE_ROWS}.`);
    for await (const entry of readDatasetLines(examplePath)) {
      if ('invalid' in entry) problems.push(`invalid example row ${formatInvalidRow({ ...entry.invalid, path: shown('example.jsonl') })}`);
    }
  }

  const metricsPath = join(data, 'example_metrics.json');
  const prepareHint = `run \`ngym prepare-data ${configHint.slice(0, -2)},responses_api_models/openai_model/configs/openai_model.yaml]" +output_dirpath=<dir> +mode=example_validation\` to (re)generate it`;
  if (!existsSync(metricsPath)) {
    problems.push(`${shown('example_metrics.json')} is missing: ${prepareHint}.`);
  } else {
    let committed: Record<string, unknown> | undefined;
    let examples: unknown;
    try {
      committed = JSON.parse(readFileSync(metricsPath, 'utf8')) as Record<string, unknown>;
      examples = committed['Number of examples'];
    } catch (error) {
      examples = `unreadable (${(error as Error).message})`;
    }
    if (examples !== EXAMPLE_ROWS) {
      problems.push(`${shown('example_metrics.json')} says "Number of examples": ${JSON.stringify(examples)}, expected ${EXAMPLE_ROWS}: ${prepareHint}.`);
    } else if (committed !== undefined && existsSync(examplePath) && problems.length === 0) {
      const diffs = await metricsDisagreement(examplePath, { name: 'example', type: 'example', jsonl_fpath: shown('example.jsonl'), ...committed });
      if (diffs.length > 0) {
        problems.push(`${shown('example_metrics.json')} does not match ${shown('example.jsonl')} (${diffs.slice(0, 3).join('; ')}${diffs.length > 3 ? `; ${diffs.length - 3} more` : ''}): ${prepareHint}.`);
      }
    }
  }

  const conflicts = existsSync(data) ? readdirSync(data).filter((name) => name.includes('conflict')) : [];
  for (const name of conflicts) {
    problems.push(`${shown(name)} exists: the committed metrics disagree with the data. Compare it with the metrics file it names, fix the data or delete the stale metrics file, rerun prepare-data, and delete ${name}.`);
  }

  const rolloutsPath = join(data, 'example_rollouts.jsonl');
  const collectHint =
    `start the servers with \`ngym run ${configHint.slice(0, -2)},<model config>]"\` and run ` +
    `\`ngym collect +agent_name=<agent> +input_jsonl_fpath=${shown('example.jsonl')} +output_jsonl_fpath=${shown('example_rollouts.jsonl')} +limit=null\``;
  if (!existsSync(rolloutsPath)) {
    problems.push(`${shown('example_rollouts.jsonl')} is missing: ${collectHint}.`);
  } else {
    const lines = countLines(readFileSync(rolloutsPath, 'utf8'));
    if (lines !== EXAMPLE_ROWS) problems.push(`${shown('example_rollouts.jsonl')} has ${lines} lines; it must have exactly ${EXAMPLE_ROWS}: ${collectHint}.`);
  }
  return problems;
}

/** How the committed metrics differ from those of the rows now in `examplePath` (prepare-data's comparison). */
async function metricsDisagreement(examplePath: string, committed: Record<string, unknown>): Promise<string[]> {
  const dataset = DatasetConfig.safeParse(committed);
  if (!dataset.success) return [`its dataset keys are invalid: ${dataset.error.issues.map((issue) => issue.message).join(', ')}`];
  const { metrics } = await computeDatasetMetrics(examplePath);
  return diffMetrics(committed, datasetMetricsFile(dataset.data, metrics));
}
