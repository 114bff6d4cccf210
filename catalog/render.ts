/** docs/environments/catalog.md from catalog.json: the summary, then one table per kind of server. */
import type { ServerResult } from './check-resources-server.ts';
import { CATEGORY_TITLES, type ReasonCategory } from './reasons.ts';
import type { ServerKind } from './upstream-servers.ts';

export interface Machine {
  cpus: number;
  memoryGiB: number;
  os: string;
  node: string;
}

export interface Catalog {
  /** When the last server of this catalog was run. */
  date: string;
  machine: Machine;
  upstream: string;
  results: ServerResult[];
}

const KIND_TITLES: Record<ServerKind, string> = {
  resources_servers: 'Resources servers',
  responses_api_agents: 'Agents',
  responses_api_models: 'Model servers',
  environment_servers: 'Environment servers',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const seconds = (value: number | undefined) => (value === undefined ? '' : `${value.toFixed(1)} s`);
const number = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(3));

/** The Python environment column: base interpreter, or a venv of its own and how long it took to build here. */
function environmentCell(result: ServerResult): string {
  if (result.hosting !== 'Python') return '';
  const own = Object.entries(result.builds ?? {}).find(([folder]) => folder === `${result.kind}/${result.name}`);
  if (result.environment === 'base') return 'base';
  return own === undefined ? 'own venv (built earlier)' : `own venv, built in ${own[1].toFixed(1)} s`;
}

/** Equal servers, in-range ones (random environments, counted apart), and the others by reason. */
export function summaryOf(results: readonly ServerResult[]): { equal: number; weak: number; inRange: number; total: number; byReason: Map<ReasonCategory, number> } {
  const resources = results.filter((result) => result.kind === 'resources_servers');
  const byReason = new Map<ReasonCategory, number>();
  for (const result of resources) {
    if (result.status !== 'equal' && result.status !== 'in-range' && result.reason !== undefined) byReason.set(result.reason.category, (byReason.get(result.reason.category) ?? 0) + 1);
  }
  const count = (status: ServerResult['status']) => resources.filter((result) => result.status === status).length;
  const weak = resources.filter((result) => result.status === 'equal' && result.weak === true).length;
  return { equal: count('equal'), weak, inRange: count('in-range'), total: resources.length, byReason };
}

/**
 * What the "needs a container runtime or image" rows need, and which run here now (docs/sandbox.md, "Upstream's
 * container servers under ngym run"): the catalog starts each config as upstream ships it, with no sandbox block.
 */
const CONTAINER_ROWS = [
  '**The container rows** (as of 2026-11-29; the catalog starts each config without a sandbox block):',
  '',
  '| server | runs here now | needs |',
  '|---|---|---|',
  "| job_bench | yes, with `configs/upstream_containers/docker_local_images.yaml` in config_paths: recorded rewards with its judge replayed (src/sandbox/providers/upstream-python.test.ts) | `python:3.13-bookworm`, mapped by image_map to a stand-in built FROM the local base |",
  "| vibench | not yet | its build image (`app-bench-base:latest`, ViBench's own) and opencode baked into it (vibench_opencode_agent downloads it from opencode.ai otherwise) |",
  "| terminal_bench_4 | not yet | an OpenSandbox server (its benchmark config names `opensandbox`) and the task images from Docker Hub |",
  "| competitive_coding_challenges, math_formal_lean | not yet | NeMo Skills' code sandbox, an HTTP service at NEMO_SKILLS_SANDBOX_HOST:NEMO_SKILLS_SANDBOX_PORT (its image, with Lean 4 and Mathlib for math_formal_lean), not a sandbox provider |",
];

export function renderCatalog(catalog: Catalog): string {
  const { equal, weak, inRange, total, byReason } = summaryOf(catalog.results);
  const lines = [
    '# Catalog: upstream NeMo Gym 0.7.0\'s environments under `ngym run`',
    '',
    "Every server folder of upstream NeMo Gym 0.7.0's wheel (found by upstream's own rule: a resources server is a folder",
    'whose `configs/*.yaml` declares a `resources_servers` block), started by `ngym run` with its own config. A resources',
    "server runs with replay_model as its policy model replaying upstream's own recording (`data/example_rollouts.jsonl`),",
    '`ngym collect` runs its `data/example.jsonl`, and each rollout is compared with the recorded rollout of its task.',
    'Made by `npm run catalog -- all` (catalog/run.ts); the figures are in `results/catalog/catalog.json`.',
    '',
    '**How equality is judged.** Replay is strict: every request the agent sends the model must continue the recording',
    '(the tool calls and the tool outputs and observations the environment returned, byte for byte), and a request that',
    'parts from it fails the rollout with the first step where it did (the recording\'s line, the step, recorded against',
    'sent). Model servers the config names besides the policy model (judges, user simulators) answer only from the model',
    "replies recorded inside the rollouts, in every shape upstream's servers store them: with their request (answered by",
    'request) or without it (raw judge texts, simulator turns: answered by the task the request quotes, in recorded',
    'order); a call with no recorded reply fails. A rollout equals its recording when every field of the recorded row',
    'equals the run\'s, nested objects and lists too; a field on one side only is a difference. Not compared: the',
    "collector's `_ng_*` stamps, `agent_ref` (the agent instance's name) and fields named as timings (`*_seconds`,",
    '`*_ms`, `latency`, `elapsed`, ...). Numbers are equal within 1e-9 relative.',
    '',
    '**Weak evidence.** A server whose recorded rewards are all the same (say five times 1) is marked *weak*: a verifier',
    'that always gave that reward would equal it on the reward; its other fields are what the equality rests on.',
    '',
    `Run ${catalog.date} on ${catalog.machine.cpus} CPUs, ${catalog.machine.memoryGiB} GiB, ${catalog.machine.os}, Node ${catalog.machine.node}; upstream ${catalog.upstream}.`,
    '',
    `**${equal} of ${total} resources servers equal their recordings under strict replay, every field compared${weak > 0 ? `; ${weak} of the ${equal} are weak evidence (every recorded reward the same)` : ''}.**`,
    '',
  ];
  if (inRange > 0) {
    lines.push(
      `${inRange} more draw at random with no seed upstream lets one set, so no recording can be replayed reward for reward: with`,
      "replay_model's fallback replies (`fallback: nearest`) every row of theirs runs and scores inside the reward range upstream",
      'declares for them (an environment\'s manifest.yaml, else its config\'s description). They are not counted as equal.',
      '',
    );
  }
  if (byReason.size > 0) {
    lines.push('The others, by reason:', '', '| reason | servers |', '|---|---|');
    for (const [category, count] of [...byReason].sort((a, b) => b[1] - a[1])) lines.push(`| ${CATEGORY_TITLES[category]} | ${count} |`);
    lines.push('');
  }
  if (byReason.has('container')) lines.push(...CONTAINER_ROWS, '');
  lines.push(
    'Columns: **runs** is TypeScript (ngym\'s own version of that server) or Python (upstream\'s app.py hosted by ngym);',
    '**environment** is the Python environment it runs in (the base interpreter, or a venv of its own and its build time on',
    'this run: a server whose venv was built on an earlier run shows no time); **ready** is `ngym run`\'s start to all',
    'servers ready; **equal** is rollouts equal to their recording / recorded rollouts, *(weak)* where every recorded',
    'reward is the same; **recorded reward** is the',
    'recording\'s mean (min..max, n), what a model like the recording\'s scores (upstream issue 986).',
    '',
  );
  for (const kind of Object.keys(KIND_TITLES) as ServerKind[]) {
    const results = catalog.results.filter((result) => result.kind === kind).sort((a, b) => a.name.localeCompare(b.name));
    if (results.length === 0) continue;
    lines.push(`## ${KIND_TITLES[kind]} (${results.length})`, '');
    const older = [...new Set(results.map((result) => result.ranOn).filter((date) => date !== undefined))];
    if (older.length > 0) lines.push(`${results.filter((result) => result.ranOn !== undefined).length} of these are from the run of ${older.join(', ')}, not re-run on ${catalog.date}.`, '');
    if (kind === 'resources_servers') {
      lines.push('| server | runs | environment | ready | equal | recorded reward | reason |', '|---|---|---|---|---|---|---|');
      for (const result of results) {
        const profile = result.recorded === undefined ? '' : `${number(result.recorded.mean)} (${number(result.recorded.min)}..${number(result.recorded.max)}, n=${result.recorded.count})`;
        const equalCell = result.total === undefined ? '' : `${result.equal ?? 0} / ${result.total}${result.status === 'equal' && result.weak === true ? ' (weak)' : ''}`;
        const why = result.status === 'equal' ? '' : result.status === 'in-range' ? `in range: ${result.reason?.text ?? ''}` : (result.reason?.text ?? '');
        const refused = result.refusedValue === undefined ? '' : `loaded with its ${result.refusedValue}, which no validation accepts (metadata only), read as TBD`;
        const reason = [refused, why].filter(Boolean).join('; ');
        lines.push(`| ${result.name} | ${result.hosting ?? ''} | ${environmentCell(result)} | ${seconds(result.readySeconds)} | ${equalCell} | ${profile} | ${cell(reason)} |`);
      }
    } else {
      const started = results.filter((result) => result.status === 'started').length;
      lines.push(`${started} of ${results.length} start.`, '', '| server | starts | runs | environment | ready | reason |', '|---|---|---|---|---|---|');
      for (const result of results) {
        lines.push(`| ${result.name} | ${result.status === 'started' ? 'yes' : 'no'} | ${result.hosting ?? ''} | ${environmentCell(result)} | ${seconds(result.readySeconds)} | ${cell(result.via !== undefined ? `started with ${result.via}'s config` : [result.note === undefined ? '' : `with ${result.note}`, result.reason?.text ?? ''].filter(Boolean).join(': '))} |`);
      }
    }
    lines.push('');
  }
  return lines.join('\n');
}
