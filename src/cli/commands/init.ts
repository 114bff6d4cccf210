/**
 * `ngym init +entrypoint=resources_servers/<name>` (alias `ng_init_resources_server`): scaffold a
 * working environment. Besides upstream's files (app, config with a simple_agent, README, a test, data
 * .gitignore) it writes the example data `ngym test` checks: five example rows, their metrics (exactly
 * what `ngym prepare-data` computes) and five example rollouts recorded by running the new environment
 * through simple_agent with a scripted model, so the scaffold passes `ngym test` and replays under
 * `ngym run` with replay_model before any LLM is involved.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { DatasetConfig } from '../../config/schemas.ts';
import { computeDatasetMetrics, datasetMetricsFile } from '../../data/prepare-data.ts';
import { pythonJsonDumpIndented, pythonJsonDumps } from '../../python-compat/python-json.ts';
import { NgymError } from '../../errors.ts';
import { assistantText } from '../../protocol/response-text.ts';
import type { FunctionCallOutputItem, ResponseItem } from '../../protocol/responses.ts';
import type { ResourcesServerDefinition } from '../../server/resources-server.ts';
import { loadServerDefinition } from '../../gym/hosting.ts';
import { assistantMessage, functionCall, scriptedModel } from '../../server/scripted-model.ts';
import { startInProcessGym } from '../../gym/in-process.ts';
import { type CliCommand, readParameters } from '../command.ts';

/** `my_env` -> `MyEnv`, as upstream names the server class. */
export function titleOf(name: string): string {
  return name
    .split('_')
    .map((part) => (part === '' ? '' : `${part[0]?.toUpperCase()}${part.slice(1)}`))
    .join('');
}

const EXAMPLE_TASKS = [
  { word: 'strawberry', letter: 'r', expected_count: 3 },
  { word: 'banana', letter: 'a', expected_count: 3 },
  { word: 'mississippi', letter: 's', expected_count: 4 },
  { word: 'bookkeeper', letter: 'e', expected_count: 3 },
  { word: 'committee', letter: 't', expected_count: 2 },
];

const SYSTEM_PROMPT = 'You are a careful assistant. Use the count_letter tool to count letters, then answer with the number.';
const question = (task: (typeof EXAMPLE_TASKS)[number]) => `How many times does the letter "${task.letter}" appear in "${task.word}"?`;

export function appSource(name: string): string {
  return `/**
 * ${name}: scaffolded by \`ngym init\`. The model counts how often a letter appears in a word with the
 * \`count_letter\` tool; verify rewards 1.0 when the last number in its final answer is the expected
 * count. Replace the tool, the data and the reward rule with your task
 * (see docs/environments/writing-an-environment.md in ngym).
 */
import { assistantText, defineResourcesServer, type ResponseItem } from 'ngym';
import * as z from 'zod';

/** The last integer in the model's final message, if any. */
function finalAnswer(output: ResponseItem[]): number | undefined {
  const texts = output.map(assistantText).filter((text): text is string => text !== undefined);
  const numbers = texts.at(-1)?.match(/-?\\d+/g);
  return numbers ? Number(numbers.at(-1)) : undefined;
}

export default defineResourcesServer({
  className: '${titleOf(name)}ResourcesServer',
  tools: {
    count_letter: {
      description: 'Count how many times a letter appears in a word (case-insensitive).',
      parameters: z.strictObject({
        word: z.string().describe('The word to search.'),
        letter: z.string().refine((text) => text.length === 1, 'must be a single letter').describe('The letter to count.'),
      }),
      handler: ({ word, letter }) => ({ count: [...word.toLowerCase()].filter((char) => char === letter.toLowerCase()).length }),
    },
  },
  // Rows must carry the expected answer; a row without it is a 422 naming the field.
  verifyRequest: z.looseObject({ expected_count: z.number().int() }),
  verify: (request) => {
    const answer = finalAnswer(request.response.output);
    return { reward: answer === request.expected_count ? 1.0 : 0.0, answer_found: answer !== undefined };
  },
});
`;
}

export function testSource(name: string): string {
  const server = `${name}_resources_server`;
  const agent = `${name}_simple_agent`;
  return `import { readFileSync } from 'node:fs';
import { type ConfigDict, type FunctionCallOutputItem, sharedHttpClient } from 'ngym';
import { assistantMessage, functionCall, type InProcessGym, modelResponse, scriptedModel, startInProcessGym } from 'ngym/testing';
import { afterEach, describe, expect, it } from 'vitest';
import definition from './app.ts';

const config: ConfigDict = {
  ${server}: { resources_servers: { ${name}: { entrypoint: 'app.ts', domain: 'other' } } },
  ${agent}: {
    responses_api_agents: {
      simple_agent: {
        entrypoint: 'app.ts',
        resources_server: { type: 'resources_servers', name: '${server}' },
        model_server: { type: 'responses_api_models', name: 'policy_model' },
      },
    },
  },
  policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
};
const question = { input: [{ role: 'user', content: 'How many times does the letter "r" appear in "strawberry"?' }] };
const http = sharedHttpClient();
let gym: InProcessGym | undefined;
afterEach(async () => {
  await gym?.close();
  gym = undefined;
});

async function start(model = scriptedModel(() => [assistantMessage('no idea')])) {
  gym = await startInProcessGym({ config, definitions: { ${server}: definition, policy_model: model.definition } });
  return gym;
}

describe('${name}', () => {
  it('counts letters with the count_letter tool, and rejects bad arguments with a 422', async () => {
    const { url } = await start();
    const counted = await http.request(url('${server}', '/count_letter'), { body: { word: 'Strawberry', letter: 'R' } });
    expect(counted.status).toBe(200);
    expect(counted.text).toBe('{"count": 3}');
    const bad = await http.request(url('${server}', '/count_letter'), { body: { word: 'strawberry', letter: 'rr' } });
    expect(bad.status).toBe(422);
    expect(bad.text).toContain('must be a single letter');
  });

  it('rewards the right final number only', async () => {
    const { url } = await start();
    const verify = async (answer: string) => {
      const body = { responses_create_params: question, response: modelResponse([assistantMessage(answer)]), expected_count: 3 };
      return (await http.request(url('${server}', '/verify'), { body })).json<{ reward: number; answer_found: boolean }>();
    };
    expect(await verify('It appears 3 times.')).toMatchObject({ reward: 1, answer_found: true });
    expect(await verify('It appears 2 times.')).toMatchObject({ reward: 0, answer_found: true });
    expect(await verify('I cannot tell.')).toMatchObject({ reward: 0, answer_found: false });
  });

  it('scores a whole rollout through simple_agent', async () => {
    const model = scriptedModel(({ index, input }) => {
      if (index === 0) return [functionCall('count_letter', { word: 'strawberry', letter: 'r' })];
      const output = input.find((item): item is FunctionCallOutputItem => item.type === 'function_call_output');
      return [assistantMessage(\`The answer is \${JSON.parse(String(output?.output)).count}.\`)];
    });
    const { url } = await start(model);
    const rollout = await http.request(url('${agent}', '/run'), { body: { responses_create_params: question, expected_count: 3 } });
    expect(rollout.status, rollout.text).toBe(200);
    expect(rollout.json()).toMatchObject({ reward: 1, expected_count: 3 });
  });

  it('offers the tools app.ts defines in every example row', () => {
    const rows = readFileSync(new URL('./data/example.jsonl', import.meta.url), 'utf8').trim().split('\\n').map((line) => JSON.parse(line));
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.responses_create_params.tools).toEqual(definition.toolDefinitions());
  });
});
`;
}

function configSource(name: string): string {
  const dataset = (type: string) => `      - name: ${type}
        type: ${type}
        jsonl_fpath: resources_servers/${name}/data/${type}.jsonl
        num_repeats: 1
        # Where \`ngym prepare-data +should_download=true\` fetches it: set repo_id to your Hugging Face dataset.
        huggingface_identifier:
          repo_id: <your-hf-organization>/${name}
          artifact_fpath: ${type}.jsonl
        license: Apache 2.0
`;
  return `${name}_resources_server:
  resources_servers:
    ${name}:
      entrypoint: app.ts
      domain: other
      verified: false
      description: Count letters in a word with a tool (scaffolded by ngym init)
${name}_simple_agent:
  responses_api_agents:
    simple_agent:
      entrypoint: app.ts
      resources_server:
        type: resources_servers
        name: ${name}_resources_server
      model_server:
        type: responses_api_models
        name: policy_model
      datasets:
${dataset('train')}${dataset('validation')}      - name: example
        type: example
        jsonl_fpath: resources_servers/${name}/data/example.jsonl
        num_repeats: 1
# Upstream NeMo Gym's collector (ng_collect_rollouts, NeMo RL) sends rows here; it relays them to the agent.
${name}_environment_server:
  environment_servers:
    legacy_agent:
      entrypoint: app.ts
      agent_server:
        type: responses_api_agents
        name: ${name}_simple_agent
`;
}

function readmeSource(name: string): string {
  const configPath = `resources_servers/${name}/configs/${name}.yaml`;
  return `# Description

${name}: the model counts how often a letter appears in a word with the \`count_letter\` tool, and gets
reward 1.0 when the last number in its final answer is the row's \`expected_count\`.

Data links: ?

Each row: \`responses_create_params\` (a system and a user message, the tool), \`word\`, \`letter\` and
\`expected_count\`. \`data/example.jsonl\` holds five examples; \`data/example_rollouts.jsonl\` was recorded
with a scripted model by \`ngym init\`: record it again with a real model once the environment is yours.

## Try it

\`\`\`sh
ngym test +entrypoint=resources_servers/${name}
ngym run "+config_paths=[${configPath},responses_api_models/openai_model/configs/openai_model.yaml]"
ngym collect +agent_name=${name}_simple_agent +input_jsonl_fpath=resources_servers/${name}/data/example.jsonl \\
  +output_jsonl_fpath=resources_servers/${name}/data/example_rollouts.jsonl +overwrite=true
ngym prepare-data "+config_paths=[${configPath},responses_api_models/openai_model/configs/openai_model.yaml]" \\
  +output_dirpath=data/${name} +mode=example_validation
ngym view +jsonl_fpath=resources_servers/${name}/data/example_rollouts.jsonl
\`\`\`

# Licensing information

Code: ?

Data: ?

Dependencies

- nemo_gym: Apache 2.0
`;
}

const GITIGNORE = ['*train.jsonl', '*validation.jsonl', '*train_prepare.jsonl', '*validation_prepare.jsonl', '*example_prepare.jsonl'].join('\n') + '\n';

/** The example rows, offering the tools the generated server defines. */
function exampleRows(definition: ResourcesServerDefinition): Record<string, unknown>[] {
  return EXAMPLE_TASKS.map((task) => ({
    responses_create_params: {
      input: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: question(task) },
      ],
      tools: definition.toolDefinitions(),
      parallel_tool_calls: false,
    },
    ...task,
  }));
}

const lastUserText = (input: ResponseItem[]) =>
  [...input].reverse().find((item) => 'role' in item && item.role === 'user' && typeof item.content === 'string')?.content as string | undefined;

/** Runs every row through the new environment and simple_agent, with a model that uses the tool correctly. */
async function recordRollouts(name: string, definition: ResourcesServerDefinition, rows: Record<string, unknown>[]): Promise<string> {
  const model = scriptedModel(({ input }) => {
    const task = EXAMPLE_TASKS.find((candidate) => question(candidate) === lastUserText(input));
    if (task === undefined) throw new Error('the recording model got a question that is not in the example rows');
    const toolOutput = input.find((item): item is FunctionCallOutputItem => item.type === 'function_call_output');
    if (toolOutput === undefined) return [functionCall('count_letter', { word: task.word, letter: task.letter })];
    const { count } = JSON.parse(String(toolOutput.output)) as { count: number };
    return [assistantMessage(`The letter "${task.letter}" appears ${count} times in "${task.word}".`)];
  });
  const server = `${name}_resources_server`;
  const agent = `${name}_simple_agent`;
  const gym = await startInProcessGym({
    config: {
      [server]: { resources_servers: { [name]: { entrypoint: 'app.ts', domain: 'other' } } },
      [agent]: {
        responses_api_agents: {
          simple_agent: {
            entrypoint: 'app.ts',
            resources_server: { type: 'resources_servers', name: server },
            model_server: { type: 'responses_api_models', name: 'policy_model' },
          },
        },
      },
      policy_model: { responses_api_models: { scripted: { entrypoint: 'app.ts' } } },
    },
    definitions: { [server]: definition, policy_model: model.definition },
  });
  try {
    let lines = '';
    for (const row of rows) {
      const response = await gym.client.post(agent, '/run', row);
      if (response.status !== 200) throw new Error(`recording an example rollout failed: HTTP ${response.status} ${response.text}`);
      const rollout = response.json<{ reward: number; response: { output: ResponseItem[] } }>();
      if (rollout.reward !== 1) {
        const answer = rollout.response.output.map(assistantText).filter(Boolean).at(-1);
        throw new Error(`the generated environment scored its own example ${rollout.reward} (answer: ${answer})`);
      }
      lines += `${JSON.stringify(rollout)}\n`;
    }
    return lines;
  } finally {
    await gym.close();
  }
}

interface ScaffoldResult {
  directory: string;
  files: string[];
}

/** Writes the environment into `<cwd>/resources_servers/<name>` (via a staging folder, so a failure leaves nothing behind). */
async function scaffoldResourcesServer(name: string, cwd: string): Promise<ScaffoldResult> {
  const directory = resolve(cwd, 'resources_servers', name);
  const staging = resolve(cwd, 'resources_servers', `.${name}.ngym-init`);
  rmSync(staging, { recursive: true, force: true });
  const files: Record<string, string> = {
    'app.ts': appSource(name),
    'app.test.ts': testSource(name),
    [`configs/${name}.yaml`]: configSource(name),
    'README.md': readmeSource(name),
    'data/.gitignore': GITIGNORE,
  };
  const write = (path: string, text: string) => {
    mkdirSync(join(staging, path, '..'), { recursive: true });
    writeFileSync(join(staging, path), text);
  };
  try {
    for (const [path, text] of Object.entries(files)) write(path, text);
    let definition: ResourcesServerDefinition;
    try {
      definition = (await loadServerDefinition(join(staging, 'app.ts'))) as ResourcesServerDefinition;
    } catch (error) {
      throw new NgymError(
        'NGYM_USAGE',
        `The generated app.ts does not load (${(error as Error).message}). Is ngym installed in this project? Run \`npm install ngym zod\` and \`npm install --save-dev vitest\` here.`,
      );
    }
    const rows = exampleRows(definition);
    write('data/example.jsonl', rows.map((row) => `${pythonJsonDumps(row)}\n`).join(''));
    const jsonlPath = `resources_servers/${name}/data/example.jsonl`;
    const { metrics } = await computeDatasetMetrics(join(staging, 'data', 'example.jsonl'));
    const dataset = DatasetConfig.parse({ name: 'example', type: 'example', jsonl_fpath: jsonlPath });
    write('data/example_metrics.json', pythonJsonDumpIndented(datasetMetricsFile(dataset, metrics)));
    write('data/example_rollouts.jsonl', await recordRollouts(name, definition, rows));
    renameSync(staging, directory);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return { directory, files: [...Object.keys(files), 'data/example.jsonl', 'data/example_metrics.json', 'data/example_rollouts.jsonl'] };
}

const Parameters = z.object({ entrypoint: z.string().min(1).describe('resources_servers/<name> (the name is lowercased).') });

export const initCommand: CliCommand = {
  name: 'init',
  summary: 'Scaffold a new environment (resources server) that passes `ngym test` and runs at once.',
  description: `
Run from your project's root (where resources_servers/ is). Creates resources_servers/<name>/ with
app.ts (one tool and a verify), app.test.ts, configs/<name>.yaml (the resources server and a
simple_agent with train/validation/example datasets), README.md, and data/: five example rows, their
metrics, and five example rollouts recorded with a scripted model. Nothing is overwritten: an existing
folder is left alone.

With --package, writes a new folder env-<name>/ instead: an environment package (package.json with the
ngym field, environments/<name>/config.yaml, the server above, README, CI), ready for \`ngym env publish\`;
+package_name=@team/env-<name> and +output_dirpath=<folder> name it (docs/environments/packages.md).

Example:
  ngym init +entrypoint=resources_servers/my_env
  ngym test +entrypoint=resources_servers/my_env
  ngym init --package +entrypoint=resources_servers/my_env +package_name=@team/env-my-env`,
  parameters: Parameters,
  async run(args) {
    // `--package`: the environment as an npm package folder (init-package.ts).
    if (args.includes('--package')) return (await import('./init-package.ts')).initPackage(args.filter((arg) => arg !== '--package'), scaffoldResourcesServer);
    const cwd = process.cwd();
    const { entrypoint } = readParameters(loadGlobalConfig({ overrides: args, envYamlPath: null }), Parameters);
    const target = resolve(cwd, entrypoint);
    if (existsSync(target)) {
      process.stdout.write(`Folder already exists: ${target}. Exiting init.\n`);
      return 0;
    }
    const parts = entrypoint.split(/[\\/]+/).filter((part) => part !== '' && part !== '.');
    if (parts.length !== 2 || parts[0] !== 'resources_servers') {
      throw new NgymError('NGYM_USAGE', `+entrypoint must be resources_servers/<name>, relative to your project's root; got '${entrypoint}'.`);
    }
    const name = (parts[1] as string).toLowerCase();
    if (!/^[a-z][a-z0-9_]*$/.test(name)) {
      throw new NgymError('NGYM_USAGE', `The environment name '${name}' must start with a letter and hold only letters, digits and underscores.`);
    }
    if (existsSync(resolve(cwd, 'resources_servers', name))) {
      process.stdout.write(`Folder already exists: ${resolve(cwd, 'resources_servers', name)}. Exiting init.\n`);
      return 0;
    }
    process.stdout.write(`Creating resources_servers/${name} and recording its example rollouts with a scripted model (no LLM)...\n`);
    const result = await scaffoldResourcesServer(name, cwd);
    process.stdout.write(
      `Created ${result.directory}:\n${result.files.map((file) => `  ${file}`).join('\n')}\n\nNext:\n` +
        `  ngym test +entrypoint=resources_servers/${name}\n` +
        `  ngym run "+config_paths=[resources_servers/${name}/configs/${name}.yaml,responses_api_models/openai_model/configs/openai_model.yaml]"\n`,
    );
    return 0;
  },
};
