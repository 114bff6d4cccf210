/**
 * vitest global setup of `npm run test:package`: packs ngym once (`npm pack`, which builds dist/) for both of the
 * suite's files and gives them the tarball as NGYM_TEST_TARBALL and the packed file list as NGYM_TEST_PACKED_FILES
 * (a JSON file). Packing twice cost the suite about 40 s. A tarball given by the caller (NGYM_TEST_TARBALL) is used
 * as it is.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/util/package-root.ts';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

export default function packNgymOnce(): (() => void) | undefined {
  if (process.env.NGYM_TEST_TARBALL) return undefined;
  const work = mkdtempSync(join(tmpdir(), 'ngym-pack-'));
  const packed = JSON.parse(
    execFileSync(NPM, ['pack', '--json', '--pack-destination', work], { cwd: PACKAGE_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }),
  ) as { filename: string; files: { path: string }[] }[];
  const filesList = join(work, 'packed-files.json');
  writeFileSync(filesList, JSON.stringify(packed[0]!.files.map((file) => file.path)));
  // Test workers start after this and inherit both.
  process.env.NGYM_TEST_TARBALL = join(work, packed[0]!.filename);
  process.env.NGYM_TEST_PACKED_FILES = filesList;
  return () => rmSync(work, { recursive: true, force: true });
}
