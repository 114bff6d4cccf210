/**
 * Why a server cannot run here or does not equal its recording, told from what `ngym run` / `ngym collect` printed:
 * the first cause that explains it, as a category (counted in the catalog's summary) and a sentence naming the key,
 * host, image or error.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export type ReasonCategory =
  | 'credential'
  | 'download'
  | 'container'
  | 'gpu'
  | 'judge'
  | 'diverges'
  | 'random'
  | 'replay'
  | 'upstream-config'
  | 'no-recording'
  | 'missing-data'
  | 'no-config'
  | 'build'
  | 'timeout'
  | 'differs'
  | 'error'
  | 'not-run';

export interface Reason {
  category: ReasonCategory;
  text: string;
}

export const CATEGORY_TITLES: Record<ReasonCategory, string> = {
  credential: 'needs a credential or endpoint',
  download: 'downloads from a host other than PyPI',
  container: 'needs a container runtime or image',
  gpu: 'needs a GPU / CUDA / vLLM',
  judge: "a judge or simulator model whose replies are not in the recording",
  diverges: 'strict replay: a tool output or request differs from the recording',
  random: 'draws at random, unseeded: the recorded replies do not apply',
  replay: 'replay_model cannot pair its tasks with their recorded replies',
  'upstream-config': "upstream's own config fails upstream's own validation",
  'no-recording': 'no usable recording',
  'missing-data': "needs data files that are not in upstream's wheel",
  'no-config': 'no config naming an agent for it',
  build: 'its Python environment does not build',
  timeout: 'not ready or not finished in time',
  differs: 'runs, but results differ from the recording',
  error: 'other error',
  'not-run': 'not reached by this run',
};

const LOCAL_HOSTS = /^(127\.|localhost$|0\.0\.0\.0$|\[?::1\]?$|pypi\.org$|files\.pythonhosted\.org$|pypi\.python\.org$)/;

/** The first host other than PyPI and loopback that a failed download names. */
export function downloadHost(text: string): string | undefined {
  const patterns = [
    /git\+https?:\/\/([^/\s'"@]+)/g,
    /git['",\s]+clone[^\n]*?https?:\/\/([^/\s'"]+)/g,
    /host='([^']+)'/g,
    /(?:Failed to (?:download|fetch|connect|resolve)|Could not (?:connect|resolve|fetch|download)|Cannot connect to host|couldn't connect|Name or service not known|ConnectError|ConnectionError|Max retries exceeded)[^\n]*?https?:\/\/([^/\s'"]+)/gi,
    /https?:\/\/([^/\s'"]+)[^\n]*?(?:Name or service not known|Temporary failure in name resolution|Connection refused|Network is unreachable|timed out)/gi,
    /Cannot connect to host ([^\s:]+)/g,
    // Node's resolver (an installer the server runs: Playwright fetching its browser).
    /getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const host = (match[1] as string).replace(/:\d+$/, '').toLowerCase();
      if (!LOCAL_HOSTS.test(host)) return host;
    }
  }
  return undefined;
}

/** Requirement lines that download from somewhere other than PyPI (a git URL, a wheel's URL). */
export function nonPypiRequirementHost(lines: readonly string[]): string | undefined {
  for (const line of lines) {
    const match = /(?:git\+)?https?:\/\/([^/\s'"@]+)/.exec(line);
    if (match !== null && !LOCAL_HOSTS.test((match[1] as string).toLowerCase())) return (match[1] as string).toLowerCase();
  }
  return undefined;
}

const NETWORK_FAILURE = /Name or service not known|Temporary failure in name resolution|getaddrinfo|Network is unreachable|URLError|ConnectError|ConnectionError|LocalEntryNotFoundError|couldn't connect|Cannot connect/;

/** Whether the output shows a connection to somewhere failing (to name its host, see hostInTraceback). */
export function networkFailed(text: string): boolean {
  return NETWORK_FAILURE.test(text);
}

function missingMandatory(text: string): string | undefined {
  return /Missing mandatory value `?([A-Za-z0-9_.\-/@]+)`?/.exec(text)?.[1];
}

/** The first line that reads as an error, trimmed. */
export function firstErrorLine(text: string): string | undefined {
  const lines = text.split('\n').map((line) => line.replace(/^\([^)]*\)\s*/, '').replace(/^\([^)]*\)\s*/, '').trim());
  const line =
    lines.find((candidate) => /^Error:|^\w*(Error|Exception)\b[:(]|^E\s+\w+Error|^\w+\.\w*(Error|Exception):/.test(candidate)) ??
    lines.find((candidate) => /error|failed|refused|cannot|could not/i.test(candidate) && !/ulimit/.test(candidate));
  return line === undefined ? undefined : line.length > 300 ? `${line.slice(0, 300)}...` : line;
}

const CONTAINER = /\b(docker|podman|apptainer|singularity|enroot|container image|opensandbox|kubernetes|k8s|Sandbox not ready)\b/i;
const GPU = /\b(CUDA|cuda\b|nvidia-smi|NCCL|no GPU|GPU is required|torch\.cuda|vllm)\b/;

/** Why `ngym run` did not get ready, from its output (and the failing build's log, when a build failed). */
export function startFailureReason(output: string, options: { ending: string; requirementLines?: readonly string[]; logPath: string; folder?: string }): Reason {
  const mandatory =
    missingMandatory(output) ??
    /Interpolation target `([^`]+)` does not exist/.exec(output)?.[1] ??
    /Environment variable (\w+) is not set/.exec(output)?.[1] ??
    /\bneeds ([a-z_]*(?:api_key|token|base_url|endpoint|password)[a-z_]*)/i.exec(output)?.[1] ??
    // A secret the config leaves null (`${oc.select:<secret>,null}`), refused by the server's pydantic config class.
    /^(?:\([^)]*\)\s*)*([a-z_]*(?:api_key|token|password))\.str$/m.exec(output)?.[1];
  if (mandatory !== undefined) return { category: 'credential', text: `needs ${mandatory} (a credential / endpoint)` };
  const buildFailed = /Building the Python environment of server .* failed/.test(output);
  if (buildFailed) {
    const host = nonPypiRequirementHost(options.requirementLines ?? []) ?? downloadHost(output);
    if (host !== undefined) return { category: 'download', text: `download from ${host}` };
    if (GPU.test(output)) return { category: 'gpu', text: `its Python environment needs CUDA: ${firstErrorLine(output) ?? ''}`.trim() };
    return { category: 'build', text: `its Python environment does not build: ${buildErrorLine(output) ?? firstErrorLine(output) ?? options.ending} (log ${options.logPath})` };
  }
  if (options.ending === 'timeout') {
    const building = /Python environment of .*: building \(([^)]*)\)/.exec(output);
    const tail = building !== null && !new RegExp(`${escapeRegExp(building[0].split(': building')[0] as string)}: built`).test(output) ? ` while building its Python environment (${building[1]})` : '';
    return { category: 'timeout', text: `not ready in time${tail} (log ${options.logPath})` };
  }
  const refused = refusedConfig(output);
  if (refused !== undefined) return refused;
  const runtime = runtimeReason(output, options.logPath);
  if (runtime !== undefined) return runtime;
  const host = networkFailed(output) ? hostInTraceback(output) : undefined;
  if (host !== undefined) return { category: 'download', text: `download from ${host.host} (at start: the host ${host.file}:${host.line} of the failing traceback names)` };
  return { category: 'error', text: `${firstErrorLine(output) ?? `ngym run ended (${options.ending})`} (log ${options.logPath})` };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function buildErrorLine(output: string): string | undefined {
  const lines = output.split('\n').map((line) => line.trim());
  return lines.find((line) => /^(×|error:|ERROR:)/.test(line) || /No solution found|Failed to build|Because .* we can conclude/.test(line));
}

/** Causes any failing output can show: a container runtime, a GPU, a download, an endpoint that is not there. */
export function runtimeReason(output: string, logPath: string): Reason | undefined {
  if (CONTAINER.test(output)) return { category: 'container', text: `needs a container runtime: ${firstMatchingLine(output, CONTAINER) ?? ''} (log ${logPath})`.trim() };
  if (GPU.test(output)) return { category: 'gpu', text: `needs a GPU / CUDA / vLLM: ${firstMatchingLine(output, GPU) ?? ''}`.trim() };
  const nltk = /Resource '?(\w+)'? not found\.\s+Please use the NLTK Downloader/.exec(output.replace(/^\([^)]*\)\s*(\([^)]*\)\s*)?/gm, ''));
  if (nltk !== null) return { category: 'download', text: `nltk data '${nltk[1]}' (nltk.download fetches it from raw.githubusercontent.com, not PyPI; LookupError without it)` };
  const host = downloadHost(output);
  if (host !== undefined) return { category: 'download', text: `download from ${host}` };
  return undefined;
}

/**
 * A server's own pydantic config class refusing the config it was given (`N validation errors for <Class>`, fields
 * `Field required`): upstream's app.py refuses upstream's config, whatever hosts it.
 */
export function refusedConfig(output: string): Reason | undefined {
  const lines = output.split('\n').map((line) => line.replace(/^\([^)]*\)\s*(\([^)]*\)\s*)?/, ''));
  const start = lines.findIndex((line) => /validation errors? for \w*Config\b/.test(line));
  if (start < 0) return undefined;
  const server = /^\(([^)]+)\)/.exec(output.split('\n').find((line) => /validation errors? for \w*Config\b/.test(line)) ?? '')?.[1];
  const className = /validation errors? for (\w+)/.exec(lines[start] as string)?.[1] as string;
  const missing: string[] = [];
  for (let index = start + 1; index + 1 < lines.length && /^\S/.test(lines[index] as string); index += 3) {
    if (/Field required/.test(lines[index + 1] as string)) missing.push((lines[index] as string).trim());
  }
  if (missing.length === 0) return undefined;
  const container = missing.some((field) => /image|sandbox/.test(field)) ? '; it runs a harness in a container image' : '';
  return {
    category: 'upstream-config',
    text: `upstream's ${server ?? 'server'} refuses the config upstream ships for it: ${className} requires ${missing.join(', ')}, which the config does not set${container}`,
  };
}

/** Packages a traceback passes through that name hosts without downloading from them (servers, HTTP clients, ngym's bridge). */
const NOT_DOWNLOADERS = /\/site-packages\/(urllib3?|requests|aiohttp|httpx|httpcore|fastapi|starlette|uvicorn|pydantic|anyio|nemo_gym|wget\.py)\b|\/lib\/python3\.\d+\/(?!site-packages\/)/;
/** How far from a frame's line a host counts as that frame's (the function it is in). */
const FRAME_REACH = 40;

/**
 * The host the failing code path names: the frames of the traceback (innermost first) whose code downloads, each read
 * around the line that ran; the first non-local host there, with the file and line it is at.
 */
export function hostInTraceback(output: string): { host: string; file: string; line: number } | undefined {
  const frames = [...output.matchAll(/File "([^"]+\.py)", line (\d+)/g)].map((match) => ({ file: match[1] as string, line: Number(match[2]) })).filter((frame) => !NOT_DOWNLOADERS.test(frame.file));
  const seen = new Set<string>();
  for (const frame of frames.reverse()) {
    const key = `${frame.file}:${frame.line}`;
    if (seen.has(key) || !existsSync(frame.file)) continue;
    seen.add(key);
    const lines = readFileSync(frame.file, 'utf8').split('\n');
    // Nearest lines first: the one that ran, then outward.
    const order = [...Array(FRAME_REACH * 2 + 1).keys()].map((offset) => frame.line - 1 + (offset % 2 === 0 ? offset / 2 : -(offset + 1) / 2)).filter((index) => index >= 0 && index < lines.length);
    for (const index of order) {
      for (const match of (lines[index] as string).matchAll(/["'](?:git\+)?https?:\/\/([^/\s'"@:{]+)/g)) {
        const host = (match[1] as string).toLowerCase();
        if (!LOCAL_HOSTS.test(host) && host.includes('.')) return { host, file: shortPath(frame.file), line: index + 1 };
      }
    }
  }
  return undefined;
}

function shortPath(file: string): string {
  const at = file.indexOf('site-packages/');
  return at < 0 ? file : file.slice(at + 'site-packages/'.length);
}

/**
 * A FileNotFoundError naming a file under the server's folder that the wheel does not hold (data upstream's README
 * says to download or generate), with the instruction its message gives.
 */
export function missingWheelData(text: string, folder: string): Reason | undefined {
  const unescaped = text.replace(/\\+'/g, "'").replace(/\\+n/g, '\n');
  const at = unescaped.indexOf(`${folder}/`);
  if (at < 0 || !/FileNotFoundError/.test(unescaped)) return undefined;
  const path = /^[^\s'"]+/.exec(unescaped.slice(at + folder.length + 1))?.[0];
  if (path === undefined || existsSync(join(folder, path))) return undefined;
  const after = unescaped.slice(at + folder.length + 1 + path.length).split(/['"]\)/)[0]?.replace(/^[\s.:'"]*(not found\.?)?\s*/, '').replace(/\s+/g, ' ').trim();
  const hint = after === undefined || after === '' ? '' : `: ${after.slice(0, 240)}`;
  return { category: 'missing-data', text: `its data file ${path} is not in upstream's wheel${hint}` };
}

/**
 * A ModuleNotFoundError for a module whose distribution is installed but holds no module (an empty placeholder on
 * PyPI under the name of a project published elsewhere): the dependency resolves, the import does not.
 */
export function placeholderDistribution(output: string, venv: string): Reason | undefined {
  const module = /ModuleNotFoundError: No module named '([\w.]+)'/.exec(output)?.[1]?.split('.')[0];
  const lib = join(venv, 'lib');
  const python = module === undefined || !existsSync(lib) ? undefined : readdirSync(lib).find((entry) => entry.startsWith('python'));
  if (module === undefined || python === undefined || !existsSync(join(lib, python, 'site-packages'))) return undefined;
  const sitePackages = join(lib, python, 'site-packages');
  const normalized = module.toLowerCase().replace(/[-_.]+/g, '_');
  const distInfo = readdirSync(sitePackages).find((entry) => entry.endsWith('.dist-info') && entry.toLowerCase().replace(/[-_.]+/g, '_').startsWith(`${normalized}_`));
  if (distInfo === undefined) return undefined;
  const record = join(sitePackages, distInfo, 'RECORD');
  const files = existsSync(record) ? readFileSync(record, 'utf8').split('\n').filter((line) => line.trim() !== '' && !line.startsWith(`${distInfo}/`)) : [];
  if (files.length > 0) return undefined;
  const version = /-([^-]+)\.dist-info$/.exec(distInfo)?.[1] ?? '?';
  return { category: 'download', text: `its dependency ${distInfo.replace(/-[^-]+\.dist-info$/, '')} ${version} from PyPI is an empty placeholder (no module ${module}): the real package is published elsewhere (not on PyPI)` };
}

/** A path its config defaults to `/nonexistent/set-<VARIABLE>/...`: data outside the wheel that the variable must point at. */
export function unsetDataVariable(text: string): Reason | undefined {
  const match = /\/nonexistent\/set-([A-Z][A-Z0-9_]*)(\/[^\s'"\\]*)?/.exec(text);
  if (match === null) return undefined;
  return { category: 'missing-data', text: `needs ${match[1]} set to a checkout of its data (its config defaults to /nonexistent/set-${match[1]}; it read ${match[0]})` };
}

/**
 * How a replay divergence reads: `first-observation`, the agent sends a user message where the recording has the
 * model's first reply (the recording was made without the observation the environment's reset now sends);
 * `observation`, a later observation differs after the same replies (the environment drew otherwise).
 */
export function replayDivergence(errors: string): 'first-observation' | 'observation' | undefined {
  const text = errors.replace(/\\+"/g, '"');
  const match = /Replay diverged from the recording at .*?, output item (\d+): the item sent differs[^]*?recorded: \["(\w+)","?(\w*)[^]*?received: \["message","user"/.exec(text);
  if (match === null) return undefined;
  if (match[1] === '0' && match[2] !== 'message') return 'first-observation';
  return match[2] === 'message' && match[3] === 'user' ? 'observation' : undefined;
}

/**
 * The first step at which a strict replay parted from the recording, as replay_model reports it (the recording's
 * row, the step, what was recorded and what was sent), from the first failed rollout that names one.
 */
export function firstDivergence(errors: string, sitePackages: string): string | undefined {
  const text = errors.replace(/\\+"/g, '"').replace(/\\+n/g, '\n').replace(/\\+'/g, "'");
  const step = /Replay diverged from the recording at (\S+?):(\d+), output item (\d+): the (tool output|item) sent differs from the recorded one\.\s*recorded: (.*?(?:\]|\.\.\.|nothing))\s*received: (.*?(?:\]|\.\.\.|nothing))(?=["'}\s]|$)/s.exec(text);
  const where = (path: string) => path.replace(`${sitePackages}/`, '');
  if (step !== null) {
    const [, path, line, item, what, recorded, received] = step as unknown as [string, string, string, string, string, string, string];
    const clip = (value: string) => (value.length > 160 ? `${value.slice(0, 160)}...` : value);
    return `strict replay diverges at ${where(path)}:${line}, step ${item} (output item ${item}): the ${what} sent differs from the recorded one (recorded ${clip(recorded)}; sent ${clip(received)})`;
  }
  const keyed = /Replay diverged from the recording at (\S+?):(\d+): this request is call (\d+) for its task, and the recording holds (\d+) replies for it/.exec(text);
  if (keyed !== null) return `a model besides the policy is called more often than recorded: call ${keyed[3]} for a task whose recording (${where(keyed[1] as string)}:${keyed[2]}) holds ${keyed[4]} replies`;
  const ended = /The recording at (\S+?):(\d+) has no model output at item (\d+) \((the recording ended|the agent supplies the item there)\)/.exec(text);
  if (ended !== null) return `strict replay diverges at ${where(ended[1] as string)}:${ended[2]}, step ${ended[3]}: the agent asks the model for a reply where the recording has none (${ended[4]})`;
  return undefined;
}

/**
 * Causes found by reading a server's code and recording, which no output shows: the recording disagrees with upstream
 * 0.7.0's own code. Each was checked against upstream's app.py itself (see the text).
 */
const INVESTIGATED: Record<string, Reason> = {
  lc_niah: {
    category: 'no-recording',
    text: "its recording was shortened after it was scored (reasoning and answers cut to '...'): upstream 0.7.0's own verify of the recorded rows gives the rewards ngym gives (1.0, 0.969, 0.997, 0.981, 0.8), not the recorded ones (0.988, 0.968, 0.989, 0.965, 0.786)",
  },
  litmus_agent: {
    category: 'no-recording',
    text: "its recording was made by an earlier verifier: for a legacy row (no answer_type, property_type fragment) upstream 0.7.0's app.py resolves the reward rule to exact, the recording says isclose; the rewards agree",
  },
  text_to_sql: {
    category: 'judge',
    text: "its judge (the policy model) is sent upstream 0.7.0's SQL_JUDGE_SYSTEM_MESSAGE (4395 characters), not the system message its recording's judge_evaluations were made with (3287; the user prompt is the same), so no recorded verdict answers it and every judge call fails",
  },
  math_formal_lean: {
    category: 'container',
    text: "its verifier compiles proofs in NeMo Skills' Lean 4 sandbox (a container at NEMO_SKILLS_SANDBOX_HOST:NEMO_SKILLS_SANDBOX_PORT, default 127.0.0.1:6000); without one every proof_status is error ('All connection attempts failed')",
  },
};

export function investigatedCause(name: string): Reason | undefined {
  return INVESTIGATED[name];
}

function firstMatchingLine(text: string, pattern: RegExp): string | undefined {
  const line = text
    .split('\n')
    .map((candidate) => candidate.trim())
    .find((candidate) => pattern.test(candidate));
  return line === undefined ? undefined : line.length > 240 ? `${line.slice(0, 240)}...` : line;
}
