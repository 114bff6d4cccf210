import { mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:package`: only the packed-tarball tests (scripts/package.test.ts, and scripts/environment-packages.test.ts:
// environments as npm packages from a local registry), which `npm test` leaves out.
const config = mergeConfig(base, { test: { testTimeout: 300_000 } });
// Its own file list, not the main suite's two projects.
delete config.test!.projects;
config.test!.include = ['scripts/package.test.ts', 'scripts/environment-packages.test.ts'];
// ngym is packed once for both files (`npm pack` rebuilds dist/ in place), before they start.
config.test!.globalSetup = [...[config.test!.globalSetup ?? []].flat(), 'scripts/lib/pack-ngym-global-setup.ts'];
// One file at a time: both install into projects and run servers; side by side they would only compete for 2 cores.
config.test!.fileParallelism = false;
export default config;
