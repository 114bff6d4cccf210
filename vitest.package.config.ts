import { mergeConfig } from 'vitest/config';
import base from './vitest.config.ts';

// `npm run test:package`: only the packed-tarball test (scripts/package.test.ts), which `npm test` leaves out.
const config = mergeConfig(base, { test: { testTimeout: 300_000 } });
config.test!.include = ['scripts/package.test.ts'];
export default config;
