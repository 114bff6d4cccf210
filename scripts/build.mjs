// `npm run build` (and `npm pack` through prepack): compiles src/ to ESM JavaScript and declarations in dist/
// (tsconfig.build.json), then copies the files src/ reads at run time beside its modules (launcher.py).
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist');
rmSync(out, { recursive: true, force: true });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const SOURCE_EXTENSIONS = new Set(['.ts', '.tsx']);
function copyAssets(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__fixtures__') copyAssets(path);
    } else if (!SOURCE_EXTENSIONS.has(extname(entry.name))) {
      cpSync(path, join(out, relative(root, path)));
    }
  }
}
copyAssets(join(root, 'src'));
