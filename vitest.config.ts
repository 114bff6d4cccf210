import { defineConfig } from 'vitest/config';
// On a Node older than package.json's engines, every run stops here, saying how to get a supported one.
import './scripts/check-node.mjs';

// `.ci/test-all.sh` sets NGYM_TEST_REPORT to get a JSON report it can count; people see the default reporter.
const report = process.env.NGYM_TEST_REPORT;

export default defineConfig({
  // Tests run the sources: `import 'ngym'` (as environments write it) resolves to src/, not the built dist/.
  ssr: { resolve: { conditions: ['ngym-source'], externalConditions: ['ngym-source'] } },
  test: {
    include: ['src/**/*.test.ts', 'resources_servers/**/*.test.ts', 'responses_api_agents/**/*.test.ts', 'responses_api_models/**/*.test.ts', 'environment_servers/**/*.test.ts', 'bench/**/*.test.ts', 'parity/**/*.test.ts', 'catalog/**/*.test.ts', 'faults/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Starts the project's container engine for tests that need one (when podman is installed and DOCKER_HOST is unset).
    globalSetup: ['src/testing/container-engine-global-setup.ts'],
    reporters: report ? ['default', ['json', { outputFile: report }]] : ['default'],
  },
});
