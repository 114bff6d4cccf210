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
  | 'random'
  | 'replay'
  | 'upstream-config'
  | 'no-recording'
  | 'missing-data'
  | 'no-config'
  | 'build'
  | 'timeout'
  | 'differs'
  | 'error';

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

/** Whether the output shows a connection to somewhere failing (to name its host, see hostInCode). */
export function networkFailed(text: string): boolean {
  return NETWORK_FAILURE.test(text);
}

/** The first non-local host a server's Python code names (its folder and one level below): where it downloads from. */
export function hostInCode(folder: string): string | undefined {
  const files = (directory: string, depth: number): string[] => {
    if (!existsSync(directory)) return [];
    return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) return depth > 0 && !['tests', '__pycache__', 'data'].includes(entry.name) ? files(path, depth - 1) : [];
      return entry.name.endsWith('.py') ? [path] : [];
    });
  };
  for (const file of files(folder, 1)) {
    for (const match of readFileSync(file, 'utf8').matchAll(/["'](?:git\+)?https?:\/\/([^/\s'"@:]+)/g)) {
      const host = (match[1] as string).toLowerCase();
      if (!LOCAL_HOSTS.test(host) && host.includes('.') && !/^(www\.)?(apache\.org|github\.com\/NVIDIA|errors\.pydantic\.dev)/.test(host)) return host;
    }
  }
  return undefined;
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
  const host = networkFailed(output) && options.folder !== undefined ? hostInCode(options.folder) : undefined;
  if (host !== undefined) return { category: 'download', text: `download from ${host} (at start; the host its code names)` };
  const packageHost = networkFailed(output) ? hostInTraceback(output) : undefined;
  if (packageHost !== undefined) return { category: 'download', text: `download from ${packageHost} (at start, by a package it installs: the host the failing traceback's code names)` };
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
const NOT_DOWNLOADERS = /\/site-packages\/(urllib3?|requests|aiohttp|httpx|httpcore|fastapi|starlette|uvicorn|pydantic|anyio|nemo_gym|wget\.py)\b/;

/** The first non-local host named in a Python file of the failing traceback (a package that downloads at import or start). */
export function hostInTraceback(output: string): string | undefined {
  const files = [...output.matchAll(/File "([^"]+\.py)", line \d+/g)].map((match) => match[1] as string).filter((file) => /site-packages\//.test(file) && !NOT_DOWNLOADERS.test(file));
  for (const file of new Set(files)) {
    if (!existsSync(file)) continue;
    for (const match of readFileSync(file, 'utf8').matchAll(/["'](?:git\+)?https?:\/\/([^/\s'"@:{]+)/g)) {
      const host = (match[1] as string).toLowerCase();
      if (!LOCAL_HOSTS.test(host) && host.includes('.')) return host;
    }
  }
  return undefined;
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
  const after = unescaped.slice(at + folder.length + 1 + path.length).split(/['"]\)/)[0]?.replace(/^[\s.:]*(not found\.?)?\s*/, '').replace(/\s+/g, ' ').trim();
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
