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
    /Environment variable (\w+) is not set/.exec(output)?.[1] ?? /\bneeds ([a-z_]*(?:api_key|token|base_url|endpoint|password)[a-z_]*)/i.exec(output)?.[1];
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
  const runtime = runtimeReason(output, options.logPath);
  if (runtime !== undefined) return runtime;
  const host = networkFailed(output) && options.folder !== undefined ? hostInCode(options.folder) : undefined;
  if (host !== undefined) return { category: 'download', text: `download from ${host} (at start; the host its code names)` };
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
  const host = downloadHost(output);
  if (host !== undefined) return { category: 'download', text: `download from ${host}` };
  return undefined;
}

function firstMatchingLine(text: string, pattern: RegExp): string | undefined {
  const line = text
    .split('\n')
    .map((candidate) => candidate.trim())
    .find((candidate) => pattern.test(candidate));
  return line === undefined ? undefined : line.length > 240 ? `${line.slice(0, 240)}...` : line;
}
