/**
 * `gym` (alias `ng`): upstream NeMo Gym 0.7.0's command tree with its group, command and flag names. Each flag
 * stands for the `+key=value` override ngym's commands read; `+key=value` overrides pass through unchanged.
 * Commands that exist in ngym under another name run that command (`gym env start` is `ngym run`); the rest are
 * built in src/cli/gym/; those that need NVIDIA's services (GitLab datasets, publishing, job submission) say so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { NgymError } from '../../errors.ts';
import { type CommandEntry, findCommand, scriptAliases } from '../commands/index.ts';
import { versionInfo } from '../commands/version.ts';
import { COMPONENT_TYPES, type ComponentType, printCatalog } from './catalog.ts';
import { FACETS } from './catalog-facets.ts';
import { downloadDataset, renderDataset } from './dataset.ts';
import { serverPackages, serverStatus, testEnvironment, validateServers } from './environment.ts';
import { aggregateRollouts, profileRollouts } from './evaluation.ts';
import {
  BENCHMARK,
  boolFlag,
  CONFIG,
  ENVIRONMENT,
  type FlagSpec,
  HEALTH_CHECK_FLAGS,
  JSON_OUTPUT,
  mergeConfigPaths,
  MODEL_FLAGS,
  MODEL_TYPE,
  overridesOf,
  ownFlag,
  RESOURCES_SERVER_CONFIG,
  RESOURCES_SERVER_FOLDER,
  SEARCH_DIR,
  SERVER_SELECTION,
  valueFlag,
} from './flags.ts';

export const GROUPS: Record<string, string> = {
  list: 'List available components (benchmarks, environments, agents, models, resources-servers).',
  dataset: 'Manage datasets.',
  env: 'Develop and run environments.',
  eval: 'Run evaluations.',
  dev: 'Contributor helpers.',
};

interface Invocation {
  /** Translated flags followed by the user's `+key=value` overrides. */
  overrides: string[];
  /** Positional words (not overrides): a component name, a query. */
  words: string[];
  options: Record<string, unknown>;
}

interface Leaf {
  /** `env start`, or `search` for a top-level command. */
  path: string;
  summary: string;
  flags: FlagSpec[];
  /** Positional arguments in the usage line, e.g. `[name]`. */
  positionals?: string;
  /** The ngym command it runs, for the mapping table (docs/cli.md). */
  ngym: string;
  run(invocation: Invocation): Promise<number>;
}

/** Runs the ngym command of this name (loaded on use, as commands/index.ts explains). */
async function runNgym(name: string, overrides: string[]): Promise<number> {
  return (await (findCommand(name) as CommandEntry).load()).run(overrides);
}

/** `ngym run` (`ng_run`): an ngym command and its upstream script, for the mapping table. */
function ngymCommand(name: string): string {
  const [script] = scriptAliases(findCommand(name) as CommandEntry);
  return `\`ngym ${name}\`${script === undefined ? '' : ` (\`${script}\`)`}`;
}

const delegate = (name: string) => (invocation: Invocation) => runNgym(name, invocation.overrides);

/** Commands of upstream that depend on NVIDIA's services or on parts ngym does not have. */
function unavailable(why: string) {
  return async (): Promise<number> => {
    throw new NgymError('NGYM_USAGE', why);
  };
}

const GITLAB = "needs NVIDIA's internal GitLab dataset registry, which ngym does not use; datasets live on the Hugging Face Hub (`gym dataset download --repo-id ...`).";

function noBenchmarks(options: Record<string, unknown>): void {
  if (options.benchmark !== undefined) throw new NgymError('NGYM_USAGE', `--benchmark ${String(options.benchmark)}: this command does not load benchmarks in ngym; gym env start, env validate, eval prepare and eval run do.`);
}

/** The overrides with the `--benchmark` configs added (src/cli/gym/benchmark.ts, loaded only when one is named). */
async function withBenchmarks(invocation: Invocation): Promise<string[]> {
  if (invocation.options.benchmark === undefined) return invocation.overrides;
  const { benchmarkSelection, withBenchmarkConfigs } = await import('./benchmark.ts');
  return withBenchmarkConfigs(invocation.overrides, benchmarkSelection(invocation.options));
}

/** Upstream's catalog facets, read from each workload's manifest.yaml (src/cli/gym/catalog-facets.ts). */
const CATALOG_FACETS = [
  ownFlag('--kind <kind>', 'Workload kind: benchmark lists the benchmarks (as gym list benchmarks).', ['environment', 'benchmark']),
  ownFlag('--modality <modality>', "Only workloads whose manifest.yaml declares this modality (e.g. text)."),
  ownFlag('--licensing <licensing>', "Only workloads whose manifest.yaml declares this licensing."),
  ownFlag('--status <status>', 'experimental (manifest marked so) or no-manifest (no manifest.yaml).', ['experimental', 'no-manifest']),
  ownFlag('--lifecycle <lifecycle>', "Only workloads whose manifest.yaml declares this lifecycle.", ['active', 'deprecated']),
];

function listLeaf(type: ComponentType): Leaf {
  const environments = type === 'environments';
  return {
    path: `list ${type}`,
    summary: environments ? 'List or inspect the environment and benchmark catalog.' : `List or inspect available ${type}.`,
    positionals: '[name]',
    flags: [...(environments ? [ownFlag('--domain <domain>', 'Only environments of this domain (math, agent, coding, ...).'), ...CATALOG_FACETS] : []), JSON_OUTPUT, SEARCH_DIR],
    ngym: type === 'benchmarks' ? "new: upstream's benchmark configs of an installed NeMo Gym (manifest metadata, agent, repeats, prompt, whether prepared)" : `new: the ${type} in the working directory and the ngym package`,
    run: async ({ words, options }) => {
      const kind = options.kind === 'benchmark' ? 'benchmarks' : type;
      const facets = Object.fromEntries(FACETS.filter((facet) => options[facet] !== undefined).map((facet) => [facet, String(options[facet])]));
      return printCatalog({ type: kind, name: words[0], json: options.json === true, domain: options.domain as string | undefined, searchDirs: options.searchDir as string[] | undefined, facets });
    },
  };
}

const LEAVES: Leaf[] = [
  ...COMPONENT_TYPES.map(listLeaf),
  {
    path: 'search',
    summary: 'Search a component type (default environments) by name; like `list` filtered to a query.',
    positionals: '[type] <query>',
    flags: [JSON_OUTPUT, SEARCH_DIR],
    ngym: 'new: `gym list` filtered by name, description and domain',
    run: async ({ words, options }) => {
      const [first, second] = words;
      if (first === undefined) throw new NgymError('NGYM_USAGE', `gym search needs a query: gym search [${COMPONENT_TYPES.join('|')}] <query>.`);
      const typed = second !== undefined && (COMPONENT_TYPES as readonly string[]).includes(first);
      if (second !== undefined && !typed) throw new NgymError('NGYM_USAGE', `Unknown component type '${first}'; choose from ${COMPONENT_TYPES.join(', ')}.`);
      return printCatalog({ type: typed ? (first as ComponentType) : 'environments', query: typed ? second : first, json: options.json === true });
    },
  },
  {
    path: 'dataset upload',
    summary: 'Upload a prepared dataset to HF (default) or GitLab.',
    flags: [ownFlag('--storage <backend>', 'Storage backend (default: hf).', ['hf', 'gitlab']), ownFlag('-i, --input <path>', 'Dataset JSONL.'), ownFlag('--name <name>', 'Dataset name.'), ownFlag('--revision <rev>', 'Revision.'), ownFlag('--split <split>', 'Split.'), ownFlag('--create-pr', 'Open a pull request.')],
    ngym: 'not available: answers with an error saying why',
    run: unavailable("gym dataset upload publishes to NVIDIA's dataset registries; ngym does not upload datasets. Push the JSONL with the Hugging Face CLI (`huggingface-cli upload <repo> <file> --repo-type dataset`)."),
  },
  {
    path: 'dataset download',
    summary: 'Download a dataset from HF (default) or GitLab.',
    flags: [
      ownFlag('--storage <backend>', 'Storage backend (default: hf).', ['hf', 'gitlab']),
      valueFlag('--repo-id <id>', 'repo_id', 'Hugging Face dataset repository, e.g. nvidia/Nemotron-RL-math-OpenMathReasoning.'),
      ownFlag('--name <name>', 'GitLab dataset name (GitLab only).'),
      valueFlag('--revision <rev>', 'revision', 'Branch, tag or commit (default main).'),
      valueFlag('--artifact <path>', 'artifact_fpath', 'The file in the repository to download.'),
      valueFlag('-o, --output <path>', 'output_fpath', 'Where to write the JSONL.'),
      valueFlag('--output-dir <dir>', 'output_dirpath', 'Directory for the file (named after the artifact or split).'),
      valueFlag('--split <split>', 'split', 'Download the JSONL files of this split instead of one artifact.'),
    ],
    ngym: 'new: a file or split from the Hugging Face Hub (`--storage gitlab`: error)',
    run: async (invocation) => {
      if (invocation.options.storage === 'gitlab') throw new NgymError('NGYM_USAGE', `--storage gitlab ${GITLAB}`);
      return downloadDataset(invocation.overrides);
    },
  },
  { path: 'dataset rm', summary: 'Delete a dataset from GitLab.', flags: [ownFlag('--name <name>', 'Dataset name.')], ngym: 'not available: answers with an error saying why', run: unavailable(`gym dataset rm ${GITLAB}`) },
  {
    path: 'dataset migrate',
    summary: 'Transfer a dataset from GitLab to HF.',
    flags: [ownFlag('-i, --input <path>', 'Dataset JSONL.'), ownFlag('--name <name>', 'Dataset name.'), ownFlag('--revision <rev>', 'Revision.'), ownFlag('--split <split>', 'Split.'), ownFlag('--create-pr', 'Open a pull request.')],
    ngym: 'not available: answers with an error saying why',
    run: unavailable(`gym dataset migrate ${GITLAB}`),
  },
  {
    path: 'dataset render',
    summary: 'Generate a dataset preview.',
    flags: [valueFlag('-i, --input <path>', 'input_jsonl_fpath', 'Raw JSONL (rows without responses_create_params.input).'), valueFlag('--prompt-config <path>', 'prompt_config', 'Prompt YAML: `user:` (and optional `system:`) templates with {field} placeholders.'), valueFlag('-o, --output <path>', 'output_jsonl_fpath', 'Materialized JSONL.'), SEARCH_DIR],
    ngym: 'new: applies a prompt YAML (`user`, `system`) to raw rows',
    run: async ({ overrides }) => renderDataset(overrides),
  },
  {
    path: 'dataset collate',
    summary: 'Validate and collate the dataset.',
    flags: [CONFIG, RESOURCES_SERVER_CONFIG, MODEL_TYPE, SEARCH_DIR, valueFlag('--mode <mode>', 'mode', 'train_preparation or example_validation.', ['train_preparation', 'example_validation']), valueFlag('--output-dir <dir>', 'output_dirpath', 'Where the collated files go.'), boolFlag('--download', 'should_download', 'Download missing datasets from Hugging Face.')],
    ngym: ngymCommand('prepare-data'),
    run: delegate('prepare-data'),
  },
  {
    path: 'env init',
    summary: 'Scaffold a resources server, environment, or benchmark.',
    flags: [
      RESOURCES_SERVER_FOLDER,
      ownFlag('--environment <name>', 'Scaffold environments/<name>/ (manifest, config, data) with a new resources server, or the one --reuse-verifier names.'),
      ownFlag('--benchmark <name>', 'Scaffold benchmarks/<name>/ (manifest, config, prompt, prepare.py, data) the same way.'),
      ownFlag('--profile <profile>', 'Integration profile (default custom-gym-verifier, the one ngym scaffolds; the others are refused with the reason).', ['custom-gym-verifier', 'custom-gym-agent-loop', 'external-agent-loop', 'external-rollout-driver']),
      ownFlag('--reuse-verifier <name>', 'Score with this existing resources server (resources_servers/<name>/configs/<name>.yaml) instead of creating one; needs --reward-range and a direction.'),
      ownFlag('--reward-range <bound...>', 'LOW HIGH: the inclusive reward range of the reused verifier (written to manifest.yaml).'),
      ownFlag('--higher-is-better', 'Declare that larger rewards are better (with --reuse-verifier).'),
      ownFlag('--lower-is-better', 'Declare that smaller rewards are better (with --reuse-verifier).'),
    ],
    ngym: `${ngymCommand('init')}; with \`--environment\` or \`--benchmark\`, upstream's manifest-backed scaffold (manifest.yaml with the reward contract, config.yaml, data), scored by a new resources server or \`--reuse-verifier\`'s`,
    run: async (invocation) => {
      const { options } = invocation;
      const workload = options.environment ?? options.benchmark;
      const usage = (message: string) => new NgymError('NGYM_USAGE', `gym env init: ${message}`);
      if (options.environment !== undefined && options.benchmark !== undefined) throw usage('--environment and --benchmark are mutually exclusive.');
      if (workload !== undefined && options.resourcesServer !== undefined) throw usage('select a resources server or a manifest-backed workload, not both.');
      if (options.higherIsBetter === true && options.lowerIsBetter === true) throw usage('--higher-is-better and --lower-is-better are mutually exclusive.');
      const workloadOptions = ['profile', 'reuseVerifier', 'rewardRange', 'higherIsBetter', 'lowerIsBetter'].filter((key) => options[key] !== undefined);
      if (workload === undefined) {
        if (workloadOptions.length > 0) throw usage('--profile, --reuse-verifier, and reward options require --environment or --benchmark.');
        return runNgym('init', invocation.overrides);
      }
      const range = options.rewardRange as string[] | undefined;
      if (range !== undefined && (range.length !== 2 || range.some((bound) => bound.trim() === '' || !Number.isFinite(Number(bound))))) throw usage(`--reward-range takes two numbers, LOW HIGH; got ${range.join(' ')}.`);
      const { checkWorkloadRequest, workloadFiles, writeWorkload } = await import('./scaffold-workload.ts');
      const request = {
        kind: options.environment !== undefined ? ('environment' as const) : ('benchmark' as const),
        name: String(workload),
        profile: (options.profile as string | undefined) ?? 'custom-gym-verifier',
        reuseVerifier: options.reuseVerifier as string | undefined,
        rewardRange: range?.map(Number) as [number, number] | undefined,
        higherIsBetter: options.higherIsBetter === true ? true : options.lowerIsBetter === true ? false : undefined,
      };
      const contract = checkWorkloadRequest(request);
      const cwd = process.cwd();
      // Checked before the resources server is made, so a conflict leaves nothing behind.
      workloadFiles(request, contract, cwd);
      let examples: string | undefined;
      if (request.reuseVerifier === undefined) {
        const code = await runNgym('init', [`+entrypoint=resources_servers/${request.name}`]);
        if (code !== 0) return code;
        const path = join(cwd, 'resources_servers', request.name, 'data', 'example.jsonl');
        examples = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
      }
      const created = writeWorkload(workloadFiles(request, contract, cwd, examples), cwd);
      process.stdout.write(created.length > 0 ? `Created ${request.kind}s/${request.name}:\n${created.map((path) => `  ${path}`).join('\n')}\n` : `${request.kind}s/${request.name} is already up to date.\n`);
      return 0;
    },
  },
  { path: 'env resolve', summary: 'Resolve the final config from configs, flags, and overrides.', flags: [...SERVER_SELECTION, ...MODEL_FLAGS], ngym: ngymCommand('dump-config'), run: delegate('dump-config') },
  {
    path: 'env validate',
    summary: 'Validate a manifest-backed workload or config without starting services.',
    positionals: '[name]',
    flags: [...SERVER_SELECTION, ...MODEL_FLAGS, JSON_OUTPUT, ownFlag('--kind <kind>', 'What NAME is: an environment (default) or a benchmark.', ['environment', 'benchmark']), ownFlag('--manifest <path>', 'Refused: ngym validates configs; it reads manifest.yaml for the catalog but does not validate one.'), ownFlag('--sync', 'Refused: ngym keeps no composition mirrors in manifests to synchronize.'), ownFlag('--strict', 'Accepted (ngym always validates strictly).')],
    ngym: 'new: composes the config and checks every server, as `ngym run` does before starting',
    run: async (invocation) => {
      const { words, options } = invocation;
      if (options.manifest !== undefined) throw new NgymError('NGYM_USAGE', '--manifest: ngym validates configs (pass the workload name, --environment or --config); it reads manifest.yaml for `gym list` but does not validate one.');
      if (options.sync !== undefined) throw new NgymError('NGYM_USAGE', '--sync: ngym keeps no composition mirrors in manifest.yaml, so there is nothing to synchronize.');
      const asBenchmark = options.kind === 'benchmark' && words[0] !== undefined;
      const named = words[0] === undefined || asBenchmark ? [] : overridesOf([ENVIRONMENT], { environment: [words[0]] });
      const selected = asBenchmark ? { ...invocation, options: { ...options, benchmark: [words[0]] } } : invocation;
      return validateServers(mergeConfigPaths([...named, ...(await withBenchmarks(selected))]));
    },
  },
  {
    path: 'env packages',
    summary: 'Print pip packages for the selected resources server.',
    flags: [RESOURCES_SERVER_FOLDER, SEARCH_DIR, ownFlag('--outdated', 'Refused: the packages are npm dependencies; `npm outdated` lists the outdated ones.'), JSON_OUTPUT],
    ngym: 'new: the npm packages the server\'s code imports',
    run: async ({ overrides, options }) => {
      if (options.outdated !== undefined) throw new NgymError('NGYM_USAGE', "--outdated: a server's packages are the project's npm dependencies; `npm outdated` lists the outdated ones.");
      return serverPackages(overrides);
    },
  },
  {
    path: 'env test',
    summary: 'Test a manifest-backed workload or resources server.',
    positionals: '[name]',
    flags: [ownFlag('--kind <kind>', 'environment (a benchmark is refused: it runs on its environment\'s servers, test those).', ['environment', 'benchmark']), ownFlag('--update-expected', 'Refused: ngym servers have no verifier fixtures; their tests are vitest files (app.test.ts).'), JSON_OUTPUT, RESOURCES_SERVER_FOLDER, SEARCH_DIR, ownFlag('--all', 'Test every server folder (ngym test-all).')],
    ngym: `${ngymCommand('test')}; with \`--all\` \`ngym test-all\`; with an environment name, \`ngym test\` of its resources servers`,
    run: async ({ words, overrides, options }) => {
      if (options.updateExpected !== undefined) throw new NgymError('NGYM_USAGE', '--update-expected: ngym servers have no verifier fixtures to update; their tests are vitest files (app.test.ts) with their expectations in the code.');
      if (options.kind === 'benchmark') throw new NgymError('NGYM_USAGE', "--kind benchmark: a benchmark runs on its environment's servers; test those (gym env test <environment> or --resources-server <name>).");
      if (options.all === true) return runNgym('test-all', overrides);
      if (words[0] !== undefined) return testEnvironment(words[0], overrides.filter((override) => !override.startsWith('+entrypoint=')));
      return runNgym('test', overrides);
    },
  },
  { path: 'env publish', summary: 'Run local publication checks and confirm catalog discovery.', positionals: '[name]', flags: [ownFlag('--kind <kind>', 'Workload kind.', ['environment', 'benchmark']), JSON_OUTPUT, SEARCH_DIR], ngym: 'not available: answers with an error saying why (to publish an environment as an npm package: `ngym env publish`)', run: unavailable("gym env publish checks an environment for NVIDIA's published catalog; ngym has no catalog to publish to. `gym env validate` and `gym env test` run the local checks; `ngym env publish` checks an environment package and publishes it to an npm registry (docs/environments/packages.md).") },
  {
    path: 'env start',
    summary: 'Start the servers.',
    flags: [...SERVER_SELECTION, ...MODEL_FLAGS],
    ngym: ngymCommand('run'),
    run: async (invocation) => runNgym('run', await withBenchmarks(invocation)),
  },
  {
    path: 'env prefetch',
    summary: 'Pre-warm per-server venvs without starting servers.',
    flags: SERVER_SELECTION,
    ngym: ngymCommand('prefetch'),
    run: async ({ overrides, options }) => {
      noBenchmarks(options);
      return runNgym('prefetch', overrides);
    },
  },
  { path: 'env status', summary: 'Print the server status.', flags: [JSON_OUTPUT], ngym: 'new: asks the head server for the servers, then each server', run: async ({ overrides }) => serverStatus(overrides) },
  { path: 'env schema', summary: "Print a resources server's task-data schema as JSON Schema.", flags: [RESOURCES_SERVER_FOLDER, SEARCH_DIR], ngym: 'not available: answers with an error saying why', run: unavailable('gym env schema needs a task_data.py schema; ngym servers declare their verify request in app.ts (see docs/environments/authoring.md).') },
  {
    path: 'eval prepare',
    summary: 'Prepare benchmark data and dump it to disk.',
    flags: [CONFIG, BENCHMARK, SEARCH_DIR],
    ngym: "new: runs each benchmark's prepare.py (upstream's, from an installed NeMo Gym) with nemo-gym's Python; its output goes to a log beside the data",
    run: async ({ overrides, options }) => {
      const { benchmarkSelection, prepareCommand } = await import('./benchmark.ts');
      return prepareCommand(overrides, benchmarkSelection(options));
    },
  },
  {
    path: 'eval run',
    summary: 'Collate data, start servers, and collect rollouts.',
    flags: [
      ...SERVER_SELECTION,
      ownFlag('--no-serve', 'Use servers already running (gym env start) instead of starting them.'),
      boolFlag('--resume', 'resume', 'Continue an interrupted run.'),
      valueFlag('-a, --agent <name>', 'agent_name', 'Agent for rows without agent_ref.'),
      valueFlag('-i, --input <path>', 'input_jsonl_fpath', 'Dataset JSONL.'),
      valueFlag('-o, --output <path>', 'output_jsonl_fpath', 'Rollouts JSONL.'),
      valueFlag('--limit <n>', 'limit', 'Only the first N rows.'),
      valueFlag('--num-repeats <n>', 'num_repeats', 'Rollouts per row.'),
      boolFlag('--interleave-repeats', 'interleave_repeats', 'Dispatch repeats round by round rather than each task\'s back to back (+interleave_repeats, read by ngym collect).'),
      valueFlag('--prompt-config <path>', 'prompt_config', "Prompt YAML that builds each row's input as it is read (default: the benchmark's or dataset's prompt_config)."),
      valueFlag('--concurrency <n>', 'num_samples_in_parallel', 'Rollouts in flight at once.'),
      valueFlag('--split <split>', 'split', 'benchmark (the split --benchmark runs; other data: pass --input).', ['train', 'validation', 'benchmark']),
      ...MODEL_FLAGS,
      valueFlag('--temperature <t>', 'responses_create_params.temperature', 'Sampling temperature.'),
      valueFlag('--top-p <p>', 'responses_create_params.top_p', 'Nucleus sampling.'),
      valueFlag('--max-output-tokens <n>', 'responses_create_params.max_output_tokens', 'Output token limit.'),
      boolFlag('--disable-aggregation', 'disable_aggregation', 'Skip the aggregate metrics (+disable_aggregation, read by ngym collect).'),
      ...HEALTH_CHECK_FLAGS,
    ],
    ngym: `\`ngym run\`, then ${ngymCommand('collect')}; with \`--no-serve\` only \`ngym collect\`; with \`--benchmark\`, of the benchmark's prepared data, agent, prompt and repeats`,
    run: async ({ overrides, options }) => {
      const { runEvaluation } = await import('./evaluation-run.ts');
      if (options.benchmark === undefined) {
        if (options.split !== undefined) throw new NgymError('NGYM_USAGE', `--split ${String(options.split)}: ngym runs the split of a benchmark (--benchmark <name>), or your data with --input <jsonl>.`);
        return options.serve === false ? runNgym('collect', overrides) : runEvaluation(overrides);
      }
      const { benchmarkRun, benchmarkSelection } = await import('./benchmark.ts');
      const run = benchmarkRun(overrides, benchmarkSelection(options));
      if (options.serve !== false) return runEvaluation(run.overrides, run.collections);
      let code = 0;
      for (const collection of run.collections) code = Math.max(code, await runNgym('collect', [...run.collectOnly, ...collection]));
      return code;
    },
  },
  {
    path: 'eval aggregate',
    summary: 'Aggregate sharded rollout results.',
    flags: [CONFIG, valueFlag('-i, --input-glob <glob>', 'input_glob', 'Rollout shards, e.g. "results/rollouts-*.jsonl".'), valueFlag('-o, --output <path>', 'output_jsonl_fpath', 'Merged rollouts JSONL.'), ...HEALTH_CHECK_FLAGS],
    ngym: 'new: merges shards in task order, writes `ngym collect`\'s metrics and reward profiles',
    run: async ({ overrides }) => aggregateRollouts(overrides),
  },
  {
    path: 'eval reverify',
    summary: 'Re-verify existing rollouts to recompute rewards with an updated resources server',
    flags: [
      ...SERVER_SELECTION.slice(0, 5),
      SEARCH_DIR,
      valueFlag('--input-format <format>', 'input_format', 'gym (Gym rollouts JSONL, default) or atif (ATIF v1.7 trajectories named by --atif-manifest).', ['gym', 'atif']),
      valueFlag('--inputs <path>', 'materialized_inputs_jsonl_fpath', "Materialized inputs JSONL: each rollout's task, joined on (_ng_task_index, _ng_rollout_index). Needed with atif; for gym rollouts optional (ngym reads the task from the rollout row)."),
      valueFlag('--rollouts <path>', 'rollouts_jsonl_fpath', 'Rollouts JSONL to re-verify.'),
      valueFlag('--atif-manifest <path>', 'atif_manifest_jsonl_fpath', 'JSONL joining each ATIF trajectory file to a (task, rollout) of --inputs.'),
      valueFlag('-o, --output <path>', 'output_jsonl_fpath', 'Output JSONL with recomputed rewards (failures go to <output>_failures.jsonl).'),
      valueFlag('--concurrency <n>', 'num_samples_in_parallel', 'Rollouts re-verified at once.'),
      valueFlag('--limit <n>', 'limit', 'Only the first N rollouts (after --judge-failed-only selects them).'),
      boolFlag('--force', 'force', 'Accepted: ngym replays each rollout\'s tool calls, so stateful verifiers re-verify correctly (no unsafe_ prefix).'),
      boolFlag('--overwrite', 'overwrite', 'Delete an existing output (and its failures file) first, instead of refusing.'),
      boolFlag('--resume', 'resume_from_cache', 'Continue a cut-short run: skip rollouts already in the output, and failures that are terminal or out of attempts.'),
      boolFlag('--disable-aggregation', 'disable_aggregation', 'Do not write <output>_aggregate_metrics.json (for shards: gym eval aggregate later).'),
      boolFlag('--judge-failed-only', 'judge_failed_only', "Recovery: copy the successes of --rollouts into the output unchanged and re-verify only the judge failures of <rollouts>_failures.jsonl."),
      boolFlag('--append', 'append', 'With --judge-failed-only: append to an existing --output (never cleared; keys already in it are skipped).'),
      valueFlag('-a, --agent <name>', 'agent_name', 'Agent for rollouts without agent_ref (ngym addition).'),
    ],
    ngym: "new: through a running gym, seeds each rollout's session, replays its tool calls and verifies again; upstream's --resume, --judge-failed-only, --append, --inputs and ATIF input (--input-format atif --atif-manifest)",
    run: async ({ overrides }) => (await import('./reverify.ts')).reverifyRollouts(overrides),
  },
  {
    path: 'eval profile',
    summary: 'Compute a reward profile from rollouts.',
    flags: [valueFlag('--inputs <path>', 'materialized_inputs_jsonl_fpath', 'Materialized inputs JSONL: also report how complete the collection is (optional in ngym).'), valueFlag('--rollouts <path>', 'rollouts_jsonl_fpath', 'Rollouts JSONL.')],
    ngym: 'new: upstream\'s reward profile (`/aggregate_metrics` default) per agent',
    run: async ({ overrides }) => profileRollouts(overrides),
  },
  {
    path: 'eval submit',
    summary: 'Submit a job.',
    flags: [ownFlag('-c, --config <path>', 'Submit config YAML file.'), ownFlag('--dry-run', 'Print generated job scripts.'), ownFlag('--resolve-only', 'Resolve the submit config only.'), ownFlag('--json', 'JSON output.')],
    ngym: 'not available: answers with an error saying why',
    run: unavailable("gym eval submit sends jobs to NVIDIA's cluster scheduler; ngym runs evaluations locally (`gym eval run`) or on your machines with `ngym worker` processes (docs/distributed.md)."),
  },
  {
    path: 'eval health-check',
    summary: 'Verify rollout quality for an existing run directory.',
    positionals: '<run_dir>',
    flags: [
      ownFlag('--rollouts-file <path>', 'Rollouts JSONL, under RUN_DIR unless absolute (default rollouts.jsonl). ngym also takes the rollouts file itself as RUN_DIR.'),
      ownFlag('--workers <n>', 'Accepted (ngym checks in one streaming pass).'),
      ownFlag('--ignore-checks, --ignore <checks>', 'Comma-separated check ids to leave out.'),
      JSON_OUTPUT,
    ],
    ngym: 'new: checks each rollout\'s response and reward (hollow turns, zero-token, runaway and truncated generations, failed calls, rewards out of range, ...), writes upstream\'s reports, exits 1 on unhealthy rollouts',
    run: async ({ words, overrides, options }) => (await import('./evaluation-checks.ts')).healthCheck(words, overrides, options),
  },
  { path: 'eval export', summary: 'Export supported Gym trajectories as ATIF.', flags: [ownFlag('--format <format>', 'atif.'), ownFlag('--rollouts <path>', 'Rollouts.'), ownFlag('--output-dir <dir>', 'Output.'), ownFlag('--session-id <id>', 'Session id.'), ownFlag('--agent-version <version>', 'Agent version.')], ngym: 'not available: answers with an error saying why', run: unavailable("gym eval export builds ATIF from each rollout's `ng_trajectory` record (upstream 0.7.0's invocations, model calls and turns), which ngym's agents do not record, so it cannot export faithfully. ATIF input works: gym eval reverify --input-format atif --atif-manifest <manifest.jsonl> --inputs <inputs.jsonl>.") },
  {
    path: 'eval compare',
    summary: 'Compare a baseline eval run against candidate runs.',
    flags: [
      valueFlag('--baseline <path>', 'baseline_rollouts_jsonl_fpath', "Baseline run's rollouts JSONL (its metrics files are read when present)."),
      valueFlag('--candidates <paths>', 'candidate_rollouts_jsonl_fpaths', "Candidate runs' rollouts JSONL, comma-separated."),
      valueFlag('--baseline-agg-metrics <path>', 'baseline_aggregate_metrics_fpath', "Baseline's aggregate-metrics JSON, when it is not the sibling of --baseline."),
      valueFlag('--candidates-agg-metrics <paths>', 'candidate_aggregate_metrics_fpaths', "Candidates' aggregate-metrics JSON, in --candidates order."),
      valueFlag('--agent <name>', 'agent_name', 'Agent to compare on both sides (default: every agent all runs have).'),
      valueFlag('--baseline-agent <name>', 'baseline_agent_name', "Agent to read from the baseline's metrics."),
      valueFlag('--candidate-agents <names>', 'candidate_agent_names', "Agent to read from each candidate's metrics, in --candidates order."),
      valueFlag('-o, --output-dir <dir>', 'output_dirpath', "Where the report goes (default: the candidate run's directory)."),
      valueFlag('--report-format <format>', 'report_format', 'Report files to write (default both).', ['md', 'json', 'both']),
    ],
    ngym: "new: metric differences with 95% intervals (paired over tasks, and upstream's Welch over repeats), per-task flips, compare_report.md/.json; refuses runs over different tasks; exits 1 when mean reward drops significantly",
    run: async ({ overrides, options }) => (await import('./evaluation-checks.ts')).compareRuns(overrides, options),
  },
  { path: 'dev test', summary: "Run NeMo Gym's unit tests.", flags: [], ngym: ngymCommand('test-all'), run: delegate('test-all') },
];

/** The tree as (upstream command, ngym command) rows, for docs/cli.md and its test. */
export function commandMapping(): { gym: string; summary: string; ngym: string }[] {
  return LEAVES.map((leaf) => ({ gym: `gym ${leaf.path}`, summary: leaf.summary, ngym: leaf.ngym }));
}

function addLeaf(parent: Command, name: string, leaf: Leaf, setExit: (code: number) => void): void {
  const command = parent.command(name).summary(leaf.summary).description(leaf.summary).argument('[args...]', leaf.positionals ? `${leaf.positionals} then +key=value overrides` : '+key=value overrides');
  command.usage(`[options] ${leaf.positionals ? `${leaf.positionals} ` : ''}[+key=value ...]`);
  for (const flag of leaf.flags) {
    const option = new Option(flag.flags, flag.description);
    if (flag.choices) option.choices(flag.choices);
    if (flag.repeatable) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    command.addOption(option);
  }
  command.option('-v, --verbose', 'Set logging level to DEBUG.');
  command.action(async (args: string[], options: Record<string, unknown>) => {
    const words = args.filter((arg) => !arg.startsWith('+'));
    const translated = overridesOf(leaf.flags, options);
    if (options.verbose === true) process.env.NGYM_LOG_LEVEL = 'debug';
    setExit(await leaf.run({ overrides: mergeConfigPaths([...translated, ...args.filter((arg) => arg.startsWith('+'))]), words, options }));
  });
}

function buildGymProgram(setExit: (code: number) => void): Command {
  const program = new Command('gym')
    .description("NeMo Gym's command tree (upstream 0.7.0's names and flags), run by ngym. Also: `ng`, `ngym <command>`, `ng_*`.")
    .version(versionInfo().ngym, '--version', 'Show the ngym version and exit.')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) });
  const groups = new Map<string, Command>();
  for (const leaf of LEAVES) {
    const [first, second] = leaf.path.split(' ') as [string, string | undefined];
    if (second === undefined) {
      addLeaf(program, first, leaf, setExit);
      continue;
    }
    let group = groups.get(first);
    if (group === undefined) {
      group = program.command(first).description(GROUPS[first] ?? '').exitOverride();
      groups.set(first, group);
    }
    addLeaf(group, second, leaf, setExit);
  }
  return program;
}

/** Runs `gym <args>` (or `ng <args>`); resolves to the exit code. */
export async function mainGym(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = buildGymProgram((code) => (exitCode = code));
  if (argv.length === 0) {
    program.outputHelp();
    return 1;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      // A group without its command: upstream prints the group's help and exits 1.
      if (error.code === 'commander.help') return 1;
      return error.exitCode === 0 ? 0 : 2;
    }
    if (NgymError.isInstance(error)) {
      process.stderr.write(`Error: ${error.message}\n`);
      return 1;
    }
    throw error;
  }
  return exitCode;
}
