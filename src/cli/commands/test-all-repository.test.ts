/**
 * What `ngym test-all` would find wrong in this repository, without running every folder's tests a second time
 * (`npm test` runs them): each folder it tests has tests, and each resources server's data passes `ngym test`'s
 * check (5 example rows, their metrics, 5 recorded rollouts, no conflict file).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { environmentDataProblems } from '../../data/environment-data.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { serverFolders, testFiles } from './test.ts';

const { withReadme } = serverFolders(PACKAGE_ROOT);

describe("the repository's server folders under ngym test-all", () => {
  it('finds the bundled servers', () => {
    expect(withReadme).toEqual(expect.arrayContaining(['resources_servers/mcqa', 'responses_api_agents/mini_swe_agent', 'responses_api_models/vllm_model']));
  });

  it.for(withReadme)('%s has tests, and a resources server passes the data check', async (display) => {
    const directory = join(PACKAGE_ROOT, display);
    expect(testFiles(directory).length, `${display} has no *.test.ts`).toBeGreaterThan(0);
    if (display.startsWith('resources_servers/')) expect(await environmentDataProblems(directory, display)).toEqual([]);
  });
});
