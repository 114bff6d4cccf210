/** `ngym version` (alias `ng_version`): versions of ngym, Node and the main dependencies. */
import { readFileSync } from 'node:fs';
import { arch, cpus, platform, totalmem } from 'node:os';
import { join } from 'node:path';
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { type CliCommand, readParameters } from '../command.ts';

function packageVersion(path: string): string {
  try {
    return (JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

export function versionInfo() {
  return {
    ngym: packageVersion(PACKAGE_ROOT),
    node: process.version,
    installation_path: PACKAGE_ROOT,
    dependencies: Object.fromEntries(['hono', 'undici', 'zod', 'yaml'].map((name) => [name, packageVersion(join(PACKAGE_ROOT, 'node_modules', name))])),
    system: { os: platform(), architecture: arch(), cpus: cpus().length, memory_gb: Math.round(totalmem() / 2 ** 30) },
  };
}

const Parameters = z.object({ json: z.boolean().default(false).describe('Print JSON.') });

export const versionCommand: CliCommand = {
  name: 'version',
  summary: 'Print the versions of ngym, Node and the main dependencies.',
  description: 'Example:\n  ngym version +json=true',
  parameters: Parameters,
  async run(args) {
    const { json } = readParameters(loadGlobalConfig({ overrides: args, envYamlPath: null }), Parameters);
    const info = versionInfo();
    if (json) process.stdout.write(`${JSON.stringify(info, null, 2)}\n`);
    else process.stdout.write(`ngym ${info.ngym} (node ${info.node}) at ${info.installation_path}\n`);
    return 0;
  },
};
