/**
 * The base image every ngym box can start from without a registry: Debian bookworm made by
 * `debootstrap --variant=minbase` from a Debian mirror (reachable where registries are not), with the packages
 * agents and verifiers need, imported into the engine as `localhost/ngym/base:bookworm`. It is cached by content:
 * the image carries a digest of its recipe in the label `ngym.recipe`, and a build whose recipe matches the
 * image already on the engine does nothing.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withBuildLock } from './build-lock.ts';
import type { ImageEngine, ProgressListener } from './image-engine.ts';
import { SandboxImageError } from './image-errors.ts';
import { requireTool, runTool } from './tools.ts';

export const BASE_IMAGE = 'localhost/ngym/base:bookworm';
/** The label holding the digest of the recipe an image was made from (base images and Dockerfile builds). */
export const RECIPE_LABEL = 'ngym.recipe';
const DEFAULT_MIRROR = 'http://deb.debian.org/debian';

/** What the image is made of; its digest is the cache key (the mirror is not: any mirror gives the same image). */
const RECIPE = {
  suite: 'bookworm',
  variant: 'minbase',
  packages: ['bash', 'ca-certificates', 'python3-minimal', 'git', 'patch', 'procps'],
  // Dropped after debootstrap: the downloaded .debs and apt's package lists (apt-get update fetches them again).
  removed: ['var/cache/apt/archives/*.deb', 'var/lib/apt/lists/*'],
  config: ['CMD ["/bin/bash"]', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'ENV LANG=C.UTF-8'],
  revision: 1,
};

function baseRecipeDigest(): string {
  return createHash('sha256').update(JSON.stringify(RECIPE)).digest('hex');
}

export interface BuildResult {
  image: string;
  /** True when the engine already had the image of this recipe and nothing was built. */
  cached: boolean;
  seconds: number;
}

export interface BaseImageOptions {
  /** The Debian mirror debootstrap downloads from (NGYM_DEBIAN_MIRROR, else deb.debian.org). */
  mirror?: string;
  /** Build even when the engine has an image of this recipe. */
  force?: boolean;
  progress?: ProgressListener;
}

/** Makes the base image on the engine unless it already has this recipe's; returns at once when cached. */
export async function ensureBaseImage(engine: ImageEngine, options: BaseImageOptions = {}): Promise<BuildResult> {
  const started = performance.now();
  const digest = baseRecipeDigest();
  const progress = options.progress ?? (() => {});
  const current = async () => (await engine.inspectImage(BASE_IMAGE))?.Config?.Labels?.[RECIPE_LABEL] === digest;
  if (options.force !== true && (await current())) return { image: BASE_IMAGE, cached: true, seconds: (performance.now() - started) / 1000 };
  // One build per recipe on this machine at a time: a second caller waits and then finds the image.
  return withBuildLock(`base-${digest.slice(0, 16)}`, progress, async () => {
    if (options.force !== true && (await current())) return { image: BASE_IMAGE, cached: true, seconds: (performance.now() - started) / 1000 };
    await buildBaseImage(engine, digest, options.mirror ?? (process.env.NGYM_DEBIAN_MIRROR || DEFAULT_MIRROR), progress);
    return { image: BASE_IMAGE, cached: false, seconds: (performance.now() - started) / 1000 };
  });
}

async function buildBaseImage(engine: ImageEngine, digest: string, mirror: string, progress: ProgressListener): Promise<void> {
  if (process.getuid?.() !== 0) throw new SandboxImageError('tool_missing', `Building ${BASE_IMAGE} runs debootstrap, which needs root; run it as root (sudo), or build the image elsewhere and load it into the engine.`);
  await requireTool('debootstrap', 'apt-get install debootstrap');
  await requireTool('tar', 'apt-get install tar');
  await engine.ping();
  const workdir = await mkdtemp(join(process.env.NGYM_IMAGE_WORKDIR || tmpdir(), 'ngym-base-'));
  const root = join(workdir, 'rootfs');
  try {
    const debootstrapStarted = performance.now();
    progress(`debootstrap --variant=${RECIPE.variant} ${RECIPE.suite} from ${mirror} (about a minute; more on a loaded machine)`);
    await runTool('debootstrap', [`--variant=${RECIPE.variant}`, `--include=${RECIPE.packages.join(',')}`, RECIPE.suite, root, mirror], phaseReporter(progress), `debootstrap of ${RECIPE.suite} from ${mirror}`);
    progress(`debootstrap done in ${((performance.now() - debootstrapStarted) / 1000).toFixed(1)} s`);
    await runTool('sh', ['-c', `cd '${root}' && rm -rf ${RECIPE.removed.join(' ')}`], () => {}, 'cleaning the root file system');
    const importStarted = performance.now();
    progress(`importing into ${engine.dockerHost} as ${BASE_IMAGE}`);
    const tar = spawn('tar', ['--numeric-owner', '--xattrs', '-C', root, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let tarErrors = '';
    tar.stderr.on('data', (chunk: Buffer) => (tarErrors += chunk.toString('utf8')));
    const tarExit = new Promise<number | null>((resolve) => tar.on('close', resolve));
    try {
      await engine.importImage(tar.stdout, BASE_IMAGE, [...RECIPE.config, `LABEL ${RECIPE_LABEL}=${digest}`, 'LABEL ngym.image=base'], progress);
    } finally {
      if (tar.exitCode === null) tar.kill();
    }
    const tarCode = await tarExit;
    if (tarCode !== 0) throw new SandboxImageError('build_failed', `tar of the root file system failed (exit ${tarCode}): ${tarErrors.trim()}`);
    progress(`imported in ${((performance.now() - importStarted) / 1000).toFixed(1)} s`);
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

/** debootstrap prints a line per package and step; progress shows each new step ("Retrieving", "Installing"...) once, with a count. */
function phaseReporter(progress: ProgressListener): (line: string) => void {
  let phase = '';
  let count = 0;
  return (line) => {
    const match = /^([IEW]): (\S+)/.exec(line);
    if (match === null) return;
    if (match[1] !== 'I') {
      progress(`debootstrap: ${line}`);
      return;
    }
    count += 1;
    if (match[2] !== phase) {
      phase = match[2] ?? '';
      progress(`debootstrap: ${line}${count > 1 ? ` (line ${count})` : ''}`);
    }
  };
}
