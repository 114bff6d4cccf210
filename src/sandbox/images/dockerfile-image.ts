/**
 * Images from a Dockerfile, built by the engine (Docker's builder, or Podman's through its compatible API) from a
 * build context sent as a tar stream. A `FROM` naming an image the engine has (the base image,
 * `localhost/ngym/base:bookworm`) needs no registry. Cached by content: the digest of the Dockerfile, the
 * context's files, the build arguments and the images its FROM lines name is the image's `ngym.recipe` label,
 * and a build whose digest matches the image already tagged does nothing.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { RECIPE_LABEL, type BuildResult } from './base-image.ts';
import type { ImageEngine, ProgressListener } from './image-engine.ts';
import { SandboxImageError } from './image-errors.ts';
import { requireTool } from './tools.ts';

export interface DockerfileBuildOptions {
  /** The Dockerfile's path. */
  dockerfile: string;
  /** The build context (default: the Dockerfile's folder); the Dockerfile must be inside it. */
  context?: string;
  /** The image's name (default: localhost/ngym/<context folder>:latest). */
  tag?: string;
  buildArgs?: Record<string, string>;
  force?: boolean;
  progress?: ProgressListener;
}

export async function buildDockerfileImage(engine: ImageEngine, options: DockerfileBuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const progress = options.progress ?? (() => {});
  const dockerfile = resolve(options.dockerfile);
  const context = resolve(options.context ?? dirname(dockerfile));
  const inContext = relative(context, dockerfile);
  if (inContext.startsWith('..') || inContext.startsWith(sep)) throw new SandboxImageError('bad_input', `The Dockerfile ${dockerfile} is outside its build context ${context}; put it inside or pass --context.`);
  const text = await readFile(dockerfile, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new SandboxImageError('bad_input', `Cannot read the Dockerfile ${dockerfile}: ${error.code ?? error.message}`);
  });
  const tag = options.tag ?? `localhost/ngym/${imageNameOf(basename(context))}:latest`;
  const buildArgs = options.buildArgs ?? {};
  await engine.ping();

  const digest = createHash('sha256');
  digest.update(JSON.stringify({ dockerfile: inContext, buildArgs: Object.entries(buildArgs).sort() }));
  // The images FROM names, as the engine has them now: a rebuilt base rebuilds what stands on it.
  for (const base of fromImages(text)) digest.update(`from ${base} ${(await engine.inspectImage(base))?.Id ?? 'absent'}\n`);
  await digestTree(context, context, digest);
  const recipe = digest.digest('hex');

  const previous = await engine.inspectImage(tag);
  if (options.force !== true && previous?.Config?.Labels?.[RECIPE_LABEL] === recipe) {
    return { image: tag, cached: true, seconds: (performance.now() - started) / 1000 };
  }
  await requireTool('tar', 'apt-get install tar');
  progress(`building ${tag} from ${dockerfile} on ${engine.dockerHost}`);
  const tar = spawn('tar', ['-C', context, '-c', '.'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let tarErrors = '';
  tar.stderr.on('data', (chunk: Buffer) => (tarErrors += chunk.toString('utf8')));
  const tarExit = new Promise<number | null>((done) => tar.on('close', done));
  try {
    await engine.build(tar.stdout, { reference: tag, dockerfile: inContext.split(sep).join('/'), labels: { [RECIPE_LABEL]: recipe, 'ngym.image': 'dockerfile' }, buildArgs }, progress);
  } finally {
    if (tar.exitCode === null) tar.kill();
  }
  const tarCode = await tarExit;
  if (tarCode !== 0) throw new SandboxImageError('build_failed', `tar of the build context ${context} failed (exit ${tarCode}): ${tarErrors.trim()}`);
  const built = await engine.inspectImage(tag);
  if (built === undefined) throw new SandboxImageError('build_failed', `The engine at ${engine.dockerHost} reported no error, but has no image ${tag} after the build.`);
  // The image the tag named before, now nameless, goes (unless a container or another name still uses it).
  if (previous !== undefined && previous.Id !== built.Id) await engine.removeImage(previous.Id.replace(/^sha256:/, ''), false).catch(() => false);
  return { image: tag, cached: false, seconds: (performance.now() - started) / 1000 };
}

/** A repository name Docker accepts, from a folder name. */
function imageNameOf(folder: string): string {
  const name = folder.toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return name === '' ? 'image' : name;
}

/** The images a Dockerfile's FROM lines name (not `scratch`, not an earlier stage). */
function fromImages(text: string): string[] {
  const stages = new Set<string>();
  const images: string[] = [];
  for (const line of text.split('\n')) {
    const match = /^\s*FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (match === null) continue;
    const image = match[1] ?? '';
    if (image.toLowerCase() !== 'scratch' && !stages.has(image.toLowerCase()) && !images.includes(image)) images.push(image);
    if (match[2] !== undefined) stages.add(match[2].toLowerCase());
  }
  return images;
}

/** Every file of the context in a fixed order: its path, kind, executable bit and content (or link target). */
async function digestTree(root: string, directory: string, digest: ReturnType<typeof createHash>): Promise<void> {
  const entries = (await readdir(directory)).sort();
  for (const name of entries) {
    const path = join(directory, name);
    const info = await lstat(path);
    const relativePath = relative(root, path);
    if (info.isDirectory()) {
      digest.update(`dir ${relativePath}\n`);
      await digestTree(root, path, digest);
    } else if (info.isSymbolicLink()) {
      digest.update(`link ${relativePath} ${await readlink(path)}\n`);
    } else if (info.isFile()) {
      digest.update(`file ${relativePath} ${info.mode & 0o111 ? 'x' : '-'} ${info.size}\n`);
      for await (const chunk of createReadStream(path)) digest.update(chunk as Buffer);
    }
  }
}
