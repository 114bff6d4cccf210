/**
 * `ngym sandbox list | debug <id> | prune | image ...`: the boxes on the container engine (DOCKER_HOST) that ngym's
 * docker provider, or upstream's DockerProvider, made: what is running, what one box is doing, and the removal of
 * those a killed run left behind. `image` builds and lists the images boxes start from (sandbox-image.ts).
 */
import { parseArgs } from 'node:util';
import { NgymError } from '../../errors.ts';
import { EngineClient } from '../../sandbox/providers/docker/engine-client.ts';
import { listSandboxBoxes, reapDeadRunBoxes, type SandboxBoxInfo } from '../../sandbox/providers/docker/reaper.ts';
import type { CliCommand } from '../command.ts';
import { formatTable } from '../output.ts';

/** parseArgs, with an unknown or malformed option reported as a usage error. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new NgymError('NGYM_USAGE', `${(error as Error).message} (see ngym sandbox --help).`);
  }
}

function age(since: Date): string {
  const seconds = Math.max(0, Math.round((Date.now() - since.getTime()) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)}m`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

function runColumn(box: SandboxBoxInfo): string {
  if (box.runId === null) return '(upstream)';
  return `${box.runId}${box.runAlive ? '' : ' (dead)'}`;
}

async function list(engine: EngineClient, args: string[]): Promise<number> {
  const { values } = asUsage(() => parseArgs({ args, options: { json: { type: 'boolean', default: false } }, strict: true }));
  const boxes = await listSandboxBoxes(engine);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(boxes, null, 2)}\n`);
    return 0;
  }
  if (boxes.length === 0) {
    process.stdout.write(`No sandbox boxes on the engine at ${engine.dockerHost}.\n`);
    return 0;
  }
  const rows = boxes.map((box) => [box.name, box.image, box.state, age(box.createdAt), runColumn(box)]);
  process.stdout.write(`${formatTable(['box', 'image', 'state', 'age', 'gym run'], rows)}\n`);
  return 0;
}

async function debug(engine: EngineClient, args: string[]): Promise<number> {
  const id = args[0];
  if (id === undefined || args.length > 1) throw new NgymError('NGYM_USAGE', 'ngym sandbox debug takes one box name or id (see ngym sandbox list).');
  const inspected = await engine.inspectContainer(id);
  if (inspected === undefined) throw new NgymError('NGYM_USAGE', `No box ${id} on the engine at ${engine.dockerHost} (see ngym sandbox list).`);
  const labels = inspected.Config.Labels ?? {};
  const ports = Object.entries(inspected.NetworkSettings.Ports ?? {}).map(([port, bindings]) => `${port} -> ${(bindings ?? []).map((binding) => `${binding.HostIp || '0.0.0.0'}:${binding.HostPort}`).join(', ') || '(not published)'}`);
  const host = inspected.HostConfig;
  const lines = [
    `box:        ${inspected.Name.replace(/^\//, '')} (${inspected.Id.slice(0, 12)})`,
    `image:      ${inspected.Config.Image}`,
    `state:      ${inspected.State.Status}${inspected.State.OOMKilled ? ' (out-of-memory killed)' : ''}${inspected.State.Running ? '' : `, exit code ${inspected.State.ExitCode}`}${inspected.State.Error ? `, ${inspected.State.Error}` : ''}`,
    `created:    ${inspected.Created} (${age(new Date(inspected.Created))} ago)`,
    `gym run:    ${labels['ngym.run'] ?? '(none: made by upstream)'}`,
    `workdir:    ${inspected.Config.WorkingDir || '/'}`,
    `user:       ${inspected.Config.User || '(image default)'}`,
    `limits:     memory ${host.Memory ? `${host.Memory / 1024 ** 2} MiB` : 'none'}, cpus ${host.NanoCpus ? host.NanoCpus / 1e9 : 'none'}, pids ${host.PidsLimit ?? 'none'}, network ${host.NetworkMode ?? 'default'}`,
    `ports:      ${ports.join('; ') || '(none)'}`,
    `labels:     ${Object.entries(labels).map(([key, value]) => `${key}=${value}`).join(', ')}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  if (inspected.State.Running) {
    const top = await engine.top(id).catch((error: unknown) => ({ Titles: ['error'], Processes: [[(error as Error).message]] }));
    process.stdout.write(`\nprocesses:\n${formatTable(top.Titles, top.Processes)}\n`);
  }
  return 0;
}

async function prune(engine: EngineClient, args: string[]): Promise<number> {
  const { values } = asUsage(() => parseArgs({ args, options: { all: { type: 'boolean', default: false }, 'dry-run': { type: 'boolean', default: false } }, strict: true }));
  let removed: SandboxBoxInfo[];
  if (values.all || values['dry-run']) {
    const boxes = await listSandboxBoxes(engine);
    removed = values.all ? boxes : boxes.filter((box) => !box.runAlive);
    if (!values['dry-run']) await Promise.all(removed.map((box) => engine.removeContainer(box.id)));
  } else {
    removed = await reapDeadRunBoxes(engine);
  }
  const verb = values['dry-run'] ? 'Would remove' : 'Removed';
  process.stdout.write(`${verb} ${removed.length} box${removed.length === 1 ? '' : 'es'}${removed.length === 0 ? '' : `: ${removed.map((box) => box.name).join(', ')}`}.\n`);
  return 0;
}

export const sandboxCommand: CliCommand = {
  name: 'sandbox',
  summary: 'The sandbox boxes on the container engine: list them, look into one, remove those a killed run left; build their images.',
  usage: '<list | debug <box> | prune [--all] [--dry-run] | image ... | opensandbox-server ...>',
  description: `
Boxes are the containers that sandbox providers make for agentic tasks (docs/sandbox.md, "Sandbox providers"):
ngym's docker provider labels each with nemo-gym.sandbox=1, ngym.sandbox=1 and ngym.run=<its gym run>;
upstream's DockerProvider with nemo-gym.sandbox=1. The engine is the one DOCKER_HOST names (the project's:
scripts/container-engine.sh start; default unix:///var/run/docker.sock).

  list [--json]          every box, running or not: name, image, state, age, gym run ("(dead)" when the run
                         that made it is gone)
  debug <box>            one box: image, state (out-of-memory kills), limits, ports, labels and its processes
  prune [--all] [--dry-run]
                         remove the boxes of runs that are gone (what the next run would reap); --all removes
                         every box, including those of running gyms and upstream's
  image <build|list|pull> ...
                         images for boxes, built without a registry (ngym sandbox image --help)
  opensandbox-server [--host H] [--port P] [--api-key KEY] [--max-sandboxes N] [--public-url URL]
                         an OpenSandbox-compatible server (lifecycle API and execd, docs/sandbox.md,
                         "OpenSandbox") backed by the docker provider, for configs that name the opensandbox
                         provider; default 127.0.0.1:8080, key from OPENSANDBOX_API_KEY; Ctrl-C removes its boxes

Examples:
  ngym sandbox list
  ngym sandbox debug nemo-gym-3f2a...
  ngym sandbox prune --dry-run`,
  actionsWithOwnHelp: ['image'],
  async run(args) {
    const [action, ...rest] = args;
    if (action === 'image') return (await import('./sandbox-image.ts')).runSandboxImageCommand(rest);
    if (action === 'opensandbox-server') return (await import('./sandbox-opensandbox-server.ts')).runOpenSandboxServerCommand(rest);
    if (action === undefined) throw new NgymError('NGYM_USAGE', 'ngym sandbox needs an action: list, debug <box>, prune, image or opensandbox-server (see ngym sandbox --help).');
    const engine = new EngineClient();
    try {
      if (action === 'list') return await list(engine, rest);
      if (action === 'debug') return await debug(engine, rest);
      if (action === 'prune') return await prune(engine, rest);
      throw new NgymError('NGYM_USAGE', `Unknown action '${action}' for ngym sandbox; expected list, debug, prune, image or opensandbox-server (see ngym sandbox --help).`);
    } finally {
      await engine.close();
    }
  },
};
