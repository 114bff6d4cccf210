/**
 * `ngym env publish`: an environment package checked before `npm publish`, cheapest check first: its package.json
 * (the `ngym` field, the keyword, the ngym peer range), what `npm pack` would put in the tarball (its data, no
 * env.yaml, within the size limit), each environment's config loading, the package's tests (`npm test`), and its
 * example rollouts re-verifying with replay (env-verify.ts). Any failure stops before anything is published.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import * as z from 'zod';
import { checkEnvironmentPackage } from '../../config/environment-packages.ts';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { isDict } from '../../config/tree.ts';
import { NgymError } from '../../errors.ts';
import { readParameters } from '../command.ts';
import { readWithIncludes } from '../gym/catalog.ts';
import { type EnvArguments, runNpm } from './env-npm.ts';
import { REPLAY_CONFIG, reportVerification, verifyExamples } from './env-verify.ts';

const Parameters = z.object({
  package_dirpath: z.string().min(1).default('.').describe('The package folder (holding package.json).'),
  max_package_mb: z.number().positive().default(50).describe('Largest unpacked size; bigger data belongs to a prepare step.'),
  dry_run: z.boolean().default(false).describe('Run every check and `npm publish --dry-run`.'),
});

const write = (text: string) => process.stdout.write(text);

interface PackResult {
  name: string;
  version: string;
  unpackedSize: number;
  files: { path: string }[];
}

function fail(label: string, problem: string): never {
  throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', `Not published: ${label} ${problem}`);
}

export async function publishCommand({ overrides, npmFlags }: EnvArguments): Promise<number> {
  const parameters = readParameters(loadGlobalConfig({ overrides, envYamlPath: null }), Parameters);
  const root = resolve(parameters.package_dirpath);
  const found = checkEnvironmentPackage(root);
  const label = `${found.name}@${found.version}`;
  if (found.problem !== undefined) throw new NgymError('NGYM_ENVIRONMENT_PACKAGE', `Not published: ${found.problem}`);
  write(`Checking ${label} (${relative(process.cwd(), root) || '.'})\n  ok  package.json: ngym field, keyword, ngym peer range\n`);

  // What npm would publish: the data must be in it (or fetched by a prepare step), env.yaml must not.
  const packed = runNpm(['pack', '--dry-run', '--json', '--ignore-scripts'], root, true);
  if (packed.code !== 0) fail(label, `could not be packed (npm pack exited ${packed.code}).`);
  const [tarball] = JSON.parse(packed.stdout) as PackResult[];
  const files = new Set((tarball?.files ?? []).map((file) => file.path));
  if (files.has('env.yaml')) fail(label, 'would ship env.yaml (the model endpoints and keys of whoever publishes); leave it out of `files`.');
  const megabytes = (tarball?.unpackedSize ?? 0) / 1024 / 1024;
  if (megabytes > parameters.max_package_mb) {
    fail(label, `is ${megabytes.toFixed(1)} MB unpacked, over +max_package_mb=${parameters.max_package_mb}: publish the large data elsewhere and fetch it with a prepare step (\`ngym.prepare\`, or a dataset's huggingface_identifier).`);
  }
  for (const environment of found.field?.environments ?? []) {
    const configFile = join(root, 'environments', environment, 'config.yaml');
    const tree = readWithIncludes(configFile, root);
    for (const entry of Object.values(tree).filter(isDict)) {
      for (const impls of Object.values(entry).filter(isDict)) {
        for (const inner of Object.values(impls).filter(isDict)) {
          for (const dataset of (Array.isArray(inner.datasets) ? inner.datasets : []).filter(isDict)) {
            const path = String(dataset.jsonl_fpath);
            const fetched = isDict(dataset.huggingface_identifier) || found.field?.prepare !== undefined;
            if (!files.has(path) && (dataset.type === 'example' || !fetched)) {
              fail(label, `would be missing its data ${path} (dataset '${String(dataset.name)}' of environment '${environment}'): add it to package.json \`files\`${dataset.type === 'example' ? '' : ', or fetch it with a prepare step'}.`);
            }
            if (dataset.type === 'example') {
              const recording = path.replace(/\.jsonl$/, '_rollouts.jsonl');
              if (!files.has(recording)) fail(label, `would be missing its example rollouts ${recording}, which \`ngym env verify\` replays.`);
            }
          }
        }
      }
    }
    // The config composes (its files found, its references to servers valid) before anything runs; replay_model
    // stands in for the policy model the user will bring.
    loadGlobalConfig({ overrides: [`+config_paths=[${configFile},${REPLAY_CONFIG}]`, '+policy_model.responses_api_models.replay_model.rollouts_jsonl_fpath=[]'], cwd: root, envYamlPath: null });
  }
  write(`  ok  tarball: ${files.size} files, ${megabytes.toFixed(2)} MB unpacked, data and example rollouts included\n  ok  configs load\n`);

  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  if (manifest.scripts?.test !== undefined) {
    write('  ..  npm test\n');
    const tested = runNpm(['test'], root);
    if (tested.code !== 0) fail(label, `fails its tests (npm test exited ${tested.code}).`);
    write('  ok  npm test\n');
  } else {
    write('  --  no test script in package.json: no tests run\n');
  }

  // The replayed rollouts go to a temporary folder: inside the package they would be published with it.
  const work = mkdtempSync(join(tmpdir(), 'ngym-publish-'));
  try {
    const environments = found.field?.environments ?? [];
    if (environments.length > 0) reportVerification(await verifyExamples(environments, { cwd: root, outputDir: work }));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  const dryRun = parameters.dry_run ? ['--dry-run'] : [];
  write(`Publishing ${label}: npm publish ${[...dryRun, ...npmFlags].join(' ')}\n`);
  const published = runNpm(['publish', ...dryRun, ...npmFlags], root);
  if (published.code !== 0) throw new NgymError('NGYM_USAGE', `npm publish of ${label} failed (exit ${published.code}); see npm's output above (is the version already published? are you logged in to the registry?).`);
  write(`${parameters.dry_run ? 'Checked (dry run)' : 'Published'} ${label}.\n`);
  return 0;
}
