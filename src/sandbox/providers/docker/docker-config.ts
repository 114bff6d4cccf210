/**
 * The docker provider's config: upstream 0.7.0's keys and defaults (nemo_gym/sandbox/providers/docker/provider.py,
 * configs/docker.yaml), so its YAML loads unchanged: `create`, `exec`, `probe`. Upstream passes
 * `create.extra_run_args`, `exec.extra_exec_args` and `provider_options.run_args` to the `docker` CLI; ngym talks
 * to the Engine API, so it reads the `docker run`/`docker exec` flags those lists use into the API's fields and
 * refuses, by name, a flag it does not know.
 */
import { isIP } from 'node:net';
import * as z from 'zod';
import { ConfigError } from '../../../errors.ts';
import { describeValidationError, parseReportingInput } from '../../../protocol/validation.ts';

const READY_PROBE_COMMAND = 'printf docker-sandbox-ready';
const READY_PROBE_EXPECTED = 'docker-sandbox-ready';

const StringList = z.union([z.string(), z.array(z.union([z.string(), z.number()]))]).transform((value) => (typeof value === 'string' ? [value] : value.map(String)));

const CreateConfig = z.strictObject({
  keepalive_shell: z.string().min(1).default('/bin/sh'),
  keepalive_cmd: z.string().min(1).default('while :; do sleep 2147483647; done'),
  start_timeout_s: z.number().positive('create.start_timeout_s must be > 0').nullable().default(600),
  use_init: z.boolean().default(true),
  /** null: the engine's default bridge; `none`: no network; `host`; or a named network. */
  network: z.string().min(1).nullable().default(null),
  read_only: z.boolean().default(false),
  cap_drop: StringList.default([]),
  security_opt: StringList.default([]),
  pids_limit: z.number().int().positive('create.pids_limit must be > 0').nullable().default(null),
  extra_run_args: StringList.default([]),
  apply_resource_limits: z.boolean().default(true),
  publish_host: z
    .string()
    .default('127.0.0.1')
    .refine((host) => isIP(host) !== 0, 'create.publish_host must be an IPv4 or IPv6 address'),
});

const ExecConfig = z.strictObject({
  default_timeout_s: z.number().positive('exec.default_timeout_s must be > 0').nullable().default(180),
  extra_exec_args: StringList.default([]),
  concurrency: z.number().int().min(1, 'exec.concurrency must be >= 1').default(32),
  /** `<shell> -c <command>`; null detects bash in the box (conda's `source` needs it) and falls back to sh. */
  exec_shell: z.string().min(1, 'exec.exec_shell must be null (auto) or a non-empty shell').nullable().default(null),
});

const ProbeConfig = z.strictObject({
  command: z.string().min(1).nullable().default(READY_PROBE_COMMAND),
  expected_stdout: z.string().nullable().default(READY_PROBE_EXPECTED),
  timeout_s: z.number().positive('probe.timeout_s must be > 0').default(30),
  deadline_s: z.number().positive('probe.deadline_s must be > 0').nullable().default(null),
  stable_count: z.number().int().min(1, 'probe.stable_count must be >= 1').default(1),
  stable_delay_s: z.number().min(0, 'probe.stable_delay_s must be >= 0').default(0),
});

/** The `docker:` block of a sandbox config (each section optional, as upstream's constructor arguments). */
export const DockerProviderConfig = z
  .strictObject({
    create: CreateConfig.nullish().transform((value) => value ?? CreateConfig.parse({})),
    exec: ExecConfig.nullish().transform((value) => value ?? ExecConfig.parse({})),
    probe: ProbeConfig.nullish().transform((value) => value ?? ProbeConfig.parse({})),
  })
  .nullish()
  .transform((value) => value ?? { create: CreateConfig.parse({}), exec: ExecConfig.parse({}), probe: ProbeConfig.parse({}) });
export type DockerProviderConfig = z.output<typeof DockerProviderConfig>;

export function parseDockerProviderConfig(input: unknown, where = 'docker'): DockerProviderConfig {
  const result = parseReportingInput(DockerProviderConfig, input);
  if (!result.success) throw new ConfigError('NGYM_CONFIG_INVALID', `Invalid sandbox provider config ${where}: ${describeValidationError(result.error)}`);
  const config = result.data;
  // The flag lists are read now, so a flag ngym cannot honour stops the config, not the first box.
  applyRunArgs({}, config.create.extra_run_args, `${where}.create.extra_run_args`);
  applyExecArgs({}, config.exec.extra_exec_args, `${where}.exec.extra_exec_args`);
  return config;
}

/** The container's create body (`POST /containers/create`), filled in by `applyRunArgs` and the provider. */
export interface ContainerBody {
  Env?: string[];
  Labels?: Record<string, string>;
  User?: string;
  WorkingDir?: string;
  Hostname?: string;
  HostConfig: Record<string, unknown> & { Binds?: string[]; CapAdd?: string[]; CapDrop?: string[]; SecurityOpt?: string[]; Tmpfs?: Record<string, string>; Ulimits?: { Name: string; Soft: number; Hard: number }[]; ExtraHosts?: string[]; Dns?: string[]; Devices?: { PathOnHost: string; PathInContainer: string; CgroupPermissions: string }[] };
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

function parseSize(text: string, flag: string, where: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([bkmgt]?)b?$/i.exec(text.trim());
  if (match === null) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: ${flag} ${text} is not a size (e.g. 512m, 2g).`);
  return Math.round(Number(match[1]) * (SIZE_UNITS[(match[2] ?? '').toLowerCase()] ?? 1));
}

/** Splits `--flag=value` and `--flag value` into [flag, value, tokens used]; a boolean flag takes no value. */
function takeFlag(args: readonly string[], index: number, booleans: ReadonlySet<string>): [string, string | undefined, number] {
  const token = args[index] as string;
  const equals = token.indexOf('=');
  if (token.startsWith('--') && equals > 0) return [token.slice(0, equals), token.slice(equals + 1), 1];
  if (booleans.has(token)) return [token, undefined, 1];
  return [token, args[index + 1], 2];
}

const RUN_BOOLEAN_FLAGS = new Set(['--privileged', '--read-only', '--init', '--rm']);
const RUN_FLAGS: readonly string[] = ['--network/--net', '--cap-add', '--cap-drop', '--security-opt', '--shm-size', '--ulimit', '--tmpfs', '-v/--volume', '-e/--env', '--add-host', '--dns', '--device', '--pids-limit', '-m/--memory', '--memory-swap', '--cpus', '-u/--user', '-w/--workdir', '-h/--hostname', '-l/--label', '--ipc', '--gpus', '--privileged', '--read-only', '--init'];

const KNOWN_RUN_FLAGS = new Set(RUN_FLAGS.flatMap((flag) => flag.split('/')));

/** Reads `docker run` flags (upstream's `extra_run_args`, `provider_options.run_args`) into a container body. */
export function applyRunArgs(body: Partial<ContainerBody>, args: readonly string[], where: string): void {
  const host = (body.HostConfig ??= {});
  const list = <Key extends string>(key: Key): string[] => ((host[key] as string[] | undefined) ?? (host[key] = [] as string[])) as string[];
  for (let index = 0; index < args.length; ) {
    const [flag, value, used] = takeFlag(args, index, RUN_BOOLEAN_FLAGS);
    index += used;
    if (!KNOWN_RUN_FLAGS.has(flag)) {
      throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: the docker run flag ${flag} is not one ngym's docker provider reads (it talks to the Engine API, not the CLI). It reads: ${RUN_FLAGS.join(', ')}.`);
    }
    if (!RUN_BOOLEAN_FLAGS.has(flag) && value === undefined) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: ${flag} needs a value.`);
    const text = value as string;
    switch (flag) {
      case '--network':
      case '--net':
        host.NetworkMode = text;
        break;
      case '--cap-add':
        list('CapAdd').push(text);
        break;
      case '--cap-drop':
        list('CapDrop').push(text);
        break;
      case '--security-opt':
        list('SecurityOpt').push(text);
        break;
      case '--shm-size':
        host.ShmSize = parseSize(text, flag, where);
        break;
      case '--ulimit': {
        const match = /^([a-z_]+)=(-?\d+)(?::(-?\d+))?$/.exec(text);
        if (match === null) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: --ulimit ${text} is not name=soft[:hard].`);
        ((host.Ulimits as unknown[] | undefined) ?? (host.Ulimits = [])).push({ Name: match[1], Soft: Number(match[2]), Hard: Number(match[3] ?? match[2]) });
        break;
      }
      case '--tmpfs': {
        const [path, options = ''] = text.split(/:(.*)/s);
        host.Tmpfs = { ...(host.Tmpfs as Record<string, string> | undefined), [path as string]: options };
        break;
      }
      case '-v':
      case '--volume':
        list('Binds').push(text);
        break;
      case '-e':
      case '--env':
        (body.Env ??= []).push(text.includes('=') ? text : `${text}=${process.env[text] ?? ''}`);
        break;
      case '--add-host':
        list('ExtraHosts').push(text);
        break;
      case '--dns':
        list('Dns').push(text);
        break;
      case '--device': {
        const [onHost, inContainer = onHost, permissions = 'rwm'] = text.split(':');
        ((host.Devices as unknown[] | undefined) ?? (host.Devices = [])).push({ PathOnHost: onHost, PathInContainer: inContainer, CgroupPermissions: permissions });
        break;
      }
      case '--pids-limit':
        host.PidsLimit = Number(text);
        break;
      case '-m':
      case '--memory':
        host.Memory = parseSize(text, flag, where);
        break;
      case '--memory-swap':
        host.MemorySwap = text === '-1' ? -1 : parseSize(text, flag, where);
        break;
      case '--cpus':
        host.NanoCpus = Math.round(Number(text) * 1e9);
        break;
      case '-u':
      case '--user':
        body.User = text;
        break;
      case '-w':
      case '--workdir':
        body.WorkingDir = text;
        break;
      case '-h':
      case '--hostname':
        body.Hostname = text;
        break;
      case '-l':
      case '--label': {
        const [key, labelValue = ''] = text.split(/=(.*)/s);
        body.Labels = { ...body.Labels, [key as string]: labelValue };
        break;
      }
      case '--ipc':
        host.IpcMode = text;
        break;
      case '--gpus':
        host.DeviceRequests = [gpuRequest(text)];
        break;
      case '--privileged':
        host.Privileged = true;
        break;
      case '--read-only':
        host.ReadonlyRootfs = true;
        break;
      case '--init':
        host.Init = true;
        break;
      default:
        throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: the docker run flag ${flag} is not handled.`);
    }
  }
}

/** `--gpus all` / `--gpus 2` / `--gpus device=0,1` as the API's device request. */
export function gpuRequest(value: string | number): Record<string, unknown> {
  const text = String(value);
  if (text === 'all') return { Driver: '', Count: -1, Capabilities: [['gpu']] };
  if (/^\d+$/.test(text)) return { Driver: '', Count: Number(text), Capabilities: [['gpu']] };
  const devices = /^(?:"?device=)?([^"]+)"?$/.exec(text)?.[1] ?? text;
  return { Driver: '', DeviceIDs: devices.split(','), Capabilities: [['gpu']] };
}

export interface ExecArgs {
  user?: string;
  env?: string[];
  cwd?: string;
  privileged?: boolean;
}

const EXEC_BOOLEAN_FLAGS = new Set(['--privileged', '-i', '--interactive']);

/** Reads `docker exec` flags (upstream's `extra_exec_args`). */
export function applyExecArgs(target: ExecArgs, args: readonly string[], where: string): ExecArgs {
  for (let index = 0; index < args.length; ) {
    const [flag, value, used] = takeFlag(args, index, EXEC_BOOLEAN_FLAGS);
    index += used;
    if (!EXEC_BOOLEAN_FLAGS.has(flag) && value === undefined) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: ${flag} needs a value.`);
    if (flag === '-u' || flag === '--user') target.user = value;
    else if (flag === '-e' || flag === '--env') (target.env ??= []).push(value as string);
    else if (flag === '-w' || flag === '--workdir') target.cwd = value;
    else if (flag === '--privileged') target.privileged = true;
    // Upstream passes -i for stdin; ngym's exec takes none, so it changes nothing.
    else if (flag === '-i' || flag === '--interactive') continue;
    else throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: the docker exec flag ${flag} is not one ngym's docker provider reads. It reads: -u/--user, -e/--env, -w/--workdir, --privileged.`);
  }
  return target;
}
