/**
 * `image_map`: the images a config names (upstream's `python:3.13-bookworm`, SWE-bench's
 * `docker.io/swebench/sweb.eval.x86_64.<id>:latest`) mapped to images this engine has or can get, which is how
 * configs run where no registry is reachable (images built here) or behind an air-gapped mirror. Upstream 0.7.0's
 * docker provider has no such key (its e2b provider maps images to templates with `create.template_map`), so ngym
 * reads it from the sandbox block beside upstream's reserved `default_metadata`:
 *
 *   sandbox:
 *     docker: {}
 *     image_map:
 *       python:3.13-bookworm: localhost/ngym/python:3.13          # one image
 *       docker.io/swebench/*: mirror.internal:5000/swebench/*     # a prefix: the `*` carries over
 *       docker.io/xingyaoww/sweb.eval.*: localhost/ngym/swe:base  # a glob onto one image
 *
 * Names compare in Docker's normal form (`python` is `docker.io/library/python:latest`; `docker://` is dropped,
 * as upstream's provider does). An exact key wins over globs; among globs the longest key wins.
 */
import * as z from 'zod';
import type { ImageEngine, ProgressListener } from './image-engine.ts';
import { registryOf } from './image-engine.ts';
import { SandboxImageError } from './image-errors.ts';

export const ImageMap = z
  .record(z.string().min(1, 'image_map keys must be non-empty image names'), z.string().min(1, 'image_map values must be non-empty image names'))
  .superRefine((map, context) => {
    for (const [pattern, target] of Object.entries(map)) {
      const stars = pattern.split('*').length - 1;
      if (target.includes('*') && (stars !== 1 || target.split('*').length !== 2)) {
        context.addIssue({ code: 'custom', path: [pattern], message: `image_map entry '${pattern}: ${target}': a '*' in the image it maps to carries what one '*' in the key matched, so each needs exactly one` });
      }
    }
  });
export type ImageMap = z.infer<typeof ImageMap>;

function isRegistryHost(component: string): boolean {
  return component.includes('.') || component.includes(':') || component === 'localhost';
}

/** Docker's normal form of a name: registry, repository path and tag (or digest) spelled out. */
export function normalizeImageName(name: string): string {
  let reference = name.startsWith('docker://') ? name.slice('docker://'.length) : name;
  const parts = reference.split('/');
  if (parts.length === 1 || !isRegistryHost(parts[0] ?? '')) reference = `docker.io/${parts.length === 1 ? 'library/' : ''}${reference}`;
  if (reference.startsWith('index.docker.io/')) reference = `docker.io/${reference.slice('index.docker.io/'.length)}`;
  const last = reference.slice(reference.lastIndexOf('/') + 1);
  return last.includes(':') || last.includes('@') ? reference : `${reference}:latest`;
}

/** A glob key in the same normal form, leaving what its `*` may match open (no tag is added after a `*`). */
function normalizePattern(pattern: string): string {
  let reference = pattern.startsWith('docker://') ? pattern.slice('docker://'.length) : pattern;
  if (reference.startsWith('*')) return reference;
  const parts = reference.split('/');
  if (parts.length === 1 || !isRegistryHost(parts[0] ?? '')) reference = `docker.io/${parts.length === 1 ? 'library/' : ''}${reference}`;
  return reference;
}

export interface ResolvedImage {
  /** The image to run. */
  image: string;
  /** The name the config used. */
  requested: string;
  /** The image_map key that mapped it; undefined when none did. */
  mappedBy?: string;
}

/** The image to run for a name a config uses. */
export function resolveImage(requested: string, map: ImageMap = {}): ResolvedImage {
  const name = normalizeImageName(requested);
  let best: { key: string; image: string } | undefined;
  for (const [key, target] of Object.entries(map)) {
    if (!key.includes('*')) {
      if (normalizeImageName(key) === name) return { image: target, requested, mappedBy: key };
      continue;
    }
    // Each `*` matches any run of characters; the first one's match carries over into a target with a `*`.
    const match = new RegExp(`^${normalizePattern(key).split('*').map(escapeRegExp).join('(.*)')}$`).exec(name);
    if (match === null || (best !== undefined && best.key.length >= key.length)) continue;
    best = { key, image: target.includes('*') ? target.replace('*', match[1] ?? '') : target };
  }
  return best === undefined ? { image: requested, requested } : { image: best.image, requested, mappedBy: best.key };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Makes sure the engine has the image to run: present, or pulled from its registry. When it is neither, the error
 * names the image (and the name the config used), the engine and the registry, and says how to get it here.
 */
export async function ensureImage(engine: ImageEngine, resolved: ResolvedImage, progress?: ProgressListener): Promise<void> {
  if ((await engine.inspectImage(resolved.image)) !== undefined) return;
  const via = resolved.mappedBy === undefined ? '' : ` (the config names ${resolved.requested}; image_map entry '${resolved.mappedBy}')`;
  const remedy = `Build it here (ngym sandbox image build --dockerfile <file> --tag ${resolved.image}) or map the name to an image the engine has with the sandbox block's image_map (docs/sandbox.md, "Images without a registry").`;
  const registry = registryOf(resolved.image);
  if (registry === 'localhost') throw new SandboxImageError('image_missing', `The image ${resolved.image}${via} is not on the engine at ${engine.dockerHost}, and localhost/ images come from no registry. ${remedy}`);
  try {
    await engine.pullImage(resolved.image, progress);
  } catch (error) {
    if (error instanceof SandboxImageError && error.failure === 'pull_failed') {
      throw new SandboxImageError('image_missing', `The image ${resolved.image}${via} is not on the engine at ${engine.dockerHost}, and pulling it from ${registry} failed: ${error.message}. ${remedy}`, error);
    }
    throw error;
  }
}
