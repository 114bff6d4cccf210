import { mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:package`: only the packed-tarball tests (scripts/package.test.ts, and scripts/environment-packages.test.ts:
// environments as npm packages from a local registry), which `npm test` leaves out.
const config = mergeConfig(base, { test: { testTimeout: 300_000 } });
config.test!.include = ['scripts/package.test.ts', 'scripts/environment-packages.test.ts'];
// One file at a time: each runs `npm pack`, which rebuilds dist/ in place.
config.test!.fileParallelism = false;
export default config;
