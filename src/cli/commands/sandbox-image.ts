/**
 * `ngym sandbox image build|list|pull`: images for sandbox boxes without a registry (docs/sandbox.md, "Images
 * without a registry"). `build --base` makes localhost/ngym/base:bookworm with debootstrap; `build --dockerfile F`
 * builds F (its FROM may name the base); both are cached by content. `list` shows the engine's images, `pull`
 * fetches one where a registry is reachable. The engine is DOCKER_HOST's (scripts/container-engine.sh start).
 */
import { parseArgs } from 'node:util';
import { BASE_IMAGE, ensureBaseImage } from '../../sandbox/images/base-image.ts';
import { buildDockerfileImage } from '../../sandbox/images/dockerfile-image.ts';
import { ImageEngine } from '../../sandbox/images/image-engine.ts';
import { ensureImage, resolveImage } from '../../sandbox/images/image-map.ts';
import { NgymError } from '../../errors.ts';
import { formatTable } from '../output.ts';

export const SANDBOX_IMAGE_HELP = `Usage: ngym sandbox image <build|list|pull> [options]

Images for sandbox boxes, on the container engine DOCKER_HOST names (the project's engine:
scripts/container-engine.sh start; or a Docker). No registry is needed: the base image comes from a
Debian mirror, and Dockerfiles build FROM it. Builds are cached by content: a second build of the
same recipe returns at once.

  build --base [--mirror URL] [--force]
      Make ${BASE_IMAGE} (debootstrap --variant=minbase bookworm with bash, ca-certificates,
      python3-minimal, git, patch, procps). Needs root and debootstrap; about a minute.
  build --dockerfile FILE [--context DIR] [--tag NAME] [--build-arg KEY=VALUE ...] [--force]
      Build FILE (its FROM may be ${BASE_IMAGE} or any image the engine has). The context is
      FILE's folder unless --context; the tag defaults to localhost/ngym/<context folder>:latest.
  list [--all]
      The engine's images (ngym's only, unless --all), with size and recipe digest.
  pull IMAGE
      Pull IMAGE from its registry (where one is reachable); says so when the engine has it already.

Environment: DOCKER_HOST (default unix:///var/run/docker.sock), NGYM_DEBIAN_MIRROR (the base image's mirror).

Examples:
  ngym sandbox image build --base
  ngym sandbox image build --dockerfile environments/my_task/Dockerfile --tag localhost/ngym/my-task:1
  ngym sandbox image list`;

const write = (text: string) => process.stdout.write(text);
const progress = (line: string) => process.stderr.write(`${line}\n`);

export async function runSandboxImageCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  if (action === undefined || action === '--help' || action === '-h' || rest.includes('--help') || rest.includes('-h')) {
    write(`${SANDBOX_IMAGE_HELP}\n`);
    return action === undefined ? 2 : 0;
  }
  const engine = new ImageEngine();
  try {
    if (action === 'build') return await build(engine, rest);
    if (action === 'list') return await list(engine, rest);
    if (action === 'pull') return await pull(engine, rest);
    throw new NgymError('NGYM_USAGE', `Unknown action '${action}' for ngym sandbox image; expected build, list or pull (see ngym sandbox image --help).`);
  } finally {
    await engine.close();
  }
}

/** parseArgs' answer, or its complaint as a usage error. */
function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new NgymError('NGYM_USAGE', `${(error as Error).message} (see ngym sandbox image --help)`);
  }
}

async function build(engine: ImageEngine, args: string[]): Promise<number> {
  const { values, positionals } = parsed(() =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        base: { type: 'boolean' },
        dockerfile: { type: 'string' },
        context: { type: 'string' },
        tag: { type: 'string' },
        'build-arg': { type: 'string', multiple: true },
        mirror: { type: 'string' },
        force: { type: 'boolean' },
      },
    }),
  );
  if (positionals.length > 0) throw new NgymError('NGYM_USAGE', `Unexpected argument ${positionals[0]}: ngym sandbox image build takes --base or --dockerfile FILE.`);
  if ((values.base === true) === (values.dockerfile !== undefined)) throw new NgymError('NGYM_USAGE', 'ngym sandbox image build needs exactly one of --base or --dockerfile FILE.');
  if (values.base === true && (values.tag !== undefined || values.context !== undefined || values['build-arg'] !== undefined)) {
    throw new NgymError('NGYM_USAGE', `--tag, --context and --build-arg go with --dockerfile; the base image is always ${BASE_IMAGE}.`);
  }
  if (values.mirror !== undefined && values.base !== true) throw new NgymError('NGYM_USAGE', '--mirror goes with --base.');
  const buildArgs: Record<string, string> = {};
  for (const pair of values['build-arg'] ?? []) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new NgymError('NGYM_USAGE', `--build-arg ${pair}: expected KEY=VALUE.`);
    buildArgs[pair.slice(0, equals)] = pair.slice(equals + 1);
  }
  const result =
    values.base === true
      ? await ensureBaseImage(engine, { mirror: values.mirror, force: values.force, progress })
      : await buildDockerfileImage(engine, { dockerfile: values.dockerfile as string, context: values.context, tag: values.tag, buildArgs, force: values.force, progress });
  write(`${result.image}: ${result.cached ? 'up to date (cached by content)' : `built in ${result.seconds.toFixed(1)} s`}\n`);
  return 0;
}

async function list(engine: ImageEngine, args: string[]): Promise<number> {
  const { values } = parsed(() => parseArgs({ args, options: { all: { type: 'boolean' } } }));
  const images = await engine.listImages();
  const rows: string[][] = [];
  for (const image of images.sort((left, right) => right.Created - left.Created)) {
    const names = image.RepoTags?.filter((name) => name !== '<none>:<none>') ?? [];
    const ngymImage = names.some((name) => name.startsWith('localhost/ngym/')) || image.Labels?.['ngym.recipe'] !== undefined;
    if (!ngymImage && values.all !== true) continue;
    rows.push([names.join(', ') || '<untagged>', image.Id.replace(/^sha256:/, '').slice(0, 12), `${(image.Size / 1e6).toFixed(0)} MB`, new Date(image.Created * 1000).toISOString().slice(0, 19).replace('T', ' '), image.Labels?.['ngym.recipe']?.slice(0, 12) ?? '']);
  }
  if (rows.length === 0) {
    write(`No ${values.all === true ? '' : 'ngym '}images on ${engine.dockerHost}${values.all === true ? '' : ' (--all lists every image)'}; make the base with: ngym sandbox image build --base\n`);
    return 0;
  }
  write(`${formatTable(['image', 'id', 'size', 'created (UTC)', 'recipe'], rows)}\n`);
  return 0;
}

async function pull(engine: ImageEngine, args: string[]): Promise<number> {
  const { positionals } = parsed(() => parseArgs({ args, allowPositionals: true, options: {} }));
  if (positionals.length !== 1) throw new NgymError('NGYM_USAGE', 'ngym sandbox image pull takes one IMAGE.');
  const image = positionals[0] as string;
  if ((await engine.inspectImage(image)) !== undefined) {
    write(`${image}: already on ${engine.dockerHost}\n`);
    return 0;
  }
  await ensureImage(engine, resolveImage(image), progress);
  write(`${image}: pulled\n`);
  return 0;
}
