/**
 * What `ngym run` gives a Python-hosted upstream server or agent that uses `nemo_gym.sandbox`, so that upstream
 * 0.7.0's unmodified providers work under ngym:
 * - the sandbox blocks its `sandbox_provider:` names, in the config it reads (`get_global_config_dict()`), without
 *   ngym's `image_map` key: upstream counts every key of a block but `default_metadata` as a provider and refuses a
 *   block with two (nemo_gym/sandbox/config.py, `resolve_provider_config`);
 * - for a `docker` block, `create.extra_run_args` that label each box as ngym labels its own (`ngym.sandbox=1`,
 *   `ngym.run=<the gym run>`, and `ngym.upstream=1`), so `ngym sandbox list|prune` see them, the next run reaps what
 *   a killed run left, and this run removes them when it stops (removeUpstreamRunBoxes);
 * - the engine, in DOCKER_HOST (the docker CLI that upstream's DockerProvider runs reads it);
 * - the block's image_map applied on the engine: each exact name is tagged onto the image it maps to, so the name
 *   upstream's provider runs is found locally instead of pulled. (A glob key cannot be applied ahead of time: the
 *   names it would match are not known until a box is made.)
 */
import { ConfigError } from '../../errors.ts';
import type { GlobalConfig } from '../../config/global-config.ts';
import { configPathOf, type ServerInstance } from '../../config/server-instances.ts';
import { type ConfigDict, isDict } from '../../config/tree.ts';
import { currentDockerHost } from '../engine-address.ts';
import { ImageEngine } from '../images/image-engine.ts';
import { SandboxImageError } from '../images/image-errors.ts';
import { ensureImage, type ImageMap, normalizeImageName } from '../images/image-map.ts';
import { EngineClient } from './docker/engine-client.ts';
import { reapDeadRunBoxes } from './docker/reaper.ts';
import { RUN_LABEL } from './run-identity.ts';
import { IMAGE_MAP_KEY, imageMapOf, WARM_POOL_KEY } from './registry.ts';

/** The label that tells a box upstream's provider made for a Python server of `ngym run` from ngym's own. */
const UPSTREAM_LABEL = 'ngym.upstream';

export interface UpstreamSandboxSetup {
  /** Top-level sandbox blocks as the Python servers read them (merged over the config they are handed). */
  blocks: ConfigDict;
  /** Environment variables for the Python servers (DOCKER_HOST). */
  env: Record<string, string>;
  /** Whether a Python server uses a docker block, so its boxes are this run's to remove when it stops. */
  usesDocker: boolean;
  /** The image maps of those blocks (applied on the engine by applyImageMaps before the servers start). */
  imageMaps: { block: string; map: ImageMap }[];
}

/** The labels a Python server's docker boxes get, as `docker run` arguments. */
function labelArguments(runId: string): string[] {
  return ['ngym.sandbox=1', `${RUN_LABEL}=${runId}`, `${UPSTREAM_LABEL}=1`].flatMap((label) => ['--label', label]);
}

/** A docker block's settings with the run's labels added to `create.extra_run_args` (a copy; other keys as written). */
function labelledDockerSettings(settings: unknown, runId: string, where: string): ConfigDict {
  const own = isDict(settings) ? settings : {};
  const create = isDict(own.create) ? own.create : {};
  const extra = create.extra_run_args ?? [];
  if (!Array.isArray(extra)) throw new ConfigError('NGYM_CONFIG_INVALID', `${where}: docker.create.extra_run_args must be a list of arguments, got ${JSON.stringify(extra)}.`);
  return { ...own, create: { ...create, extra_run_args: [...extra, ...labelArguments(runId)] } };
}

/**
 * The sandbox setup of the Python servers of a config: the blocks their `sandbox_provider:` names (by name; an
 * inline mapping is the server's own business), as upstream's code must read them.
 */
export function upstreamSandboxSetup(globalConfig: GlobalConfig, runsInPython: (instance: ServerInstance) => boolean, runId: string): UpstreamSandboxSetup {
  const blocks: ConfigDict = {};
  const imageMaps: UpstreamSandboxSetup['imageMaps'] = [];
  let usesDocker = false;
  for (const instance of globalConfig.servers) {
    if (!runsInPython(instance) || !('sandbox_provider' in instance.config)) continue;
    const reference = globalConfig.resolvedValue([...configPathOf(instance), 'sandbox_provider']);
    if (typeof reference !== 'string' || reference in blocks) continue;
    const block = globalConfig.dict[reference];
    if (!isDict(block)) continue;
    const where = `the sandbox block '${reference}'`;
    // ngym's own keys of a block; upstream would take them for providers.
    const { [IMAGE_MAP_KEY]: mapValue, [WARM_POOL_KEY]: _warmPool, ...rest } = block;
    if ('docker' in rest) {
      usesDocker = true;
      rest.docker = labelledDockerSettings(rest.docker, runId, where);
    }
    const map = imageMapOf(mapValue === undefined ? undefined : globalConfig.resolvedValue([reference, IMAGE_MAP_KEY]), where);
    if (Object.keys(map).length > 0) imageMaps.push({ block: reference, map });
    blocks[reference] = rest;
  }
  return { blocks, env: Object.keys(blocks).length > 0 ? { DOCKER_HOST: currentDockerHost() } : {}, usesDocker, imageMaps };
}

/**
 * Before the Python servers start: removes the boxes a killed run left behind (ngym's docker provider does so
 * before its first box; upstream's does not) and applies the blocks' image maps. Resolves to lines for the run's
 * output. An engine that cannot be reached is left for upstream's provider to report when a box is made, unless an
 * image map needs it.
 */
export async function prepareUpstreamSandboxes(setup: UpstreamSandboxSetup, dockerHost = currentDockerHost()): Promise<string[]> {
  const lines: string[] = [];
  if (setup.usesDocker) {
    const engine = new EngineClient(dockerHost, 4);
    try {
      const reaped = await reapDeadRunBoxes(engine);
      if (reaped.length > 0) lines.push(`Removed ${reaped.length} sandbox box(es) left by gym runs that are gone: ${reaped.map((box) => box.name).join(', ')}.`);
    } catch (error) {
      lines.push(`Could not check the engine at ${dockerHost} for boxes left by earlier runs: ${(error as Error).message}`);
    } finally {
      await engine.close();
    }
  }
  return [...lines, ...(await applyImageMaps(setup.imageMaps, dockerHost))];
}

/**
 * Tags each exact image_map name onto the image it maps to, on the engine, so upstream's provider runs the mapped
 * image under the name its config gives. Resolves to lines for the run's output (what was tagged, and the glob keys
 * that cannot reach a Python server, and the images the map names that the engine lacks).
 */
async function applyImageMaps(imageMaps: UpstreamSandboxSetup['imageMaps'], dockerHost = currentDockerHost()): Promise<string[]> {
  if (imageMaps.length === 0) return [];
  const engine = new ImageEngine(dockerHost);
  const lines: string[] = [];
  try {
    for (const { block, map } of imageMaps) {
      for (const [name, image] of Object.entries(map)) {
        if (name.includes('*')) {
          lines.push(`Sandbox block '${block}': image_map key '${name}' is a glob, which upstream's Python servers cannot use (their provider runs the name their config gives): map each name exactly for them.`);
          continue;
        }
        try {
          await ensureImage(engine, { image, requested: name, mappedBy: name });
        } catch (error) {
          // One block maps the images of many servers: one not built here concerns only a server that runs it.
          if (!(error instanceof SandboxImageError) || error.failure !== 'image_missing') throw error;
          lines.push(`Sandbox block '${block}': ${error.message}`);
          continue;
        }
        await engine.tagImage(image, normalizeImageName(name));
        lines.push(`Sandbox block '${block}': ${name} runs as ${image} for upstream's Python servers (tagged on the engine at ${dockerHost}).`);
      }
    }
  } finally {
    await engine.close();
  }
  return lines;
}

/** Removes the boxes upstream's providers made for this run's Python servers (at the run's end); resolves to how many. */
export async function removeUpstreamRunBoxes(runId: string, dockerHost = currentDockerHost()): Promise<number> {
  const engine = new EngineClient(dockerHost, 4);
  try {
    // Both labels are checked here too: engines differ in whether two label filters must both match.
    const boxes = (await engine.listContainers([`${RUN_LABEL}=${runId}`, `${UPSTREAM_LABEL}=1`])).filter((box) => box.Labels?.[RUN_LABEL] === runId && box.Labels[UPSTREAM_LABEL] === '1');
    await Promise.all(boxes.map((box) => engine.removeContainer(box.Id).catch(() => false)));
    return boxes.length;
  } finally {
    await engine.close();
  }
}
