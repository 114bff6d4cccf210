import { configDefaults, defineConfig } from 'vitest/config';
// On a Node older than package.json's engines, every run stops here, saying how to get a supported one.
import './scripts/check-node.mjs';

// `.ci/test-all.sh` sets NGYM_TEST_REPORT to get a JSON report it can count; people see the default reporter.
const report = process.env.NGYM_TEST_REPORT;

const TESTS = ['src/**/*.test.ts', 'resources_servers/**/*.test.ts', 'responses_api_agents/**/*.test.ts', 'responses_api_models/**/*.test.ts', 'environment_servers/**/*.test.ts', 'bench/**/*.test.ts', 'parity/**/*.test.ts', 'catalog/**/*.test.ts', 'faults/**/*.test.ts'];
// Files that must run alone: they kill, stop and starve processes on timers, fill memory up to cgroup and heap
// limits, or read the machine's free memory, and a test file beside them would change what they measure; and the
// container-engine script's own test, whose second engine shares the host's bridge with the one other files use; and
// the `ngym sandbox` CLI test, whose killed run's box any other file's provider would reap before the CLI lists it.
const ALONE = ['faults/**/*.test.ts', 'src/cli/cli.test.ts', 'src/gym/python-admission.test.ts', 'src/util/memory-budget.test.ts', 'src/sandbox/container.test.ts', 'src/testing/container-engine.test.ts', 'src/cli/commands/sandbox.test.ts'];

export default defineConfig({
  // Tests run the sources: `import 'ngym'` (as environments write it) resolves to src/, not the built dist/.
  ssr: { resolve: { conditions: ['ngym-source'], externalConditions: ['ngym-source'] } },
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Most files wait on servers and child processes, so two at a time keep both cores busy (on 2 cores vitest
    // would otherwise run one); the files that must run alone go after them, one at a time.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'shared', include: TESTS, exclude: [...configDefaults.exclude, ...ALONE], sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'alone', include: ALONE, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
    // Starts the project's container engine for tests that need one (when podman is installed and DOCKER_HOST is unset).
    globalSetup: ['src/testing/container-engine-global-setup.ts'],
    reporters: report ? ['default', ['json', { outputFile: report }]] : ['default'],
  },
});
