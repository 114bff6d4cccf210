/** docs/environments/authoring.md shows the scaffold's code; this keeps the page equal to what `ngym init` writes. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { appSource, testSource } from './init.ts';

const page = readFileSync(join(PACKAGE_ROOT, 'docs', 'environments', 'authoring.md'), 'utf8');
const codeBlocks = [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

describe('docs/environments/authoring.md', () => {
  it("shows the scaffold's app.ts as ngym init writes it, and says how long it is", () => {
    const app = appSource('letter_count');
    expect(codeBlocks[0]).toBe(app);
    const lines = app.trimEnd().split('\n').length;
    expect(lines).toBeLessThan(50);
    expect(page).toContain(`## A whole environment in ${lines} lines`);
  });

  it("shows an excerpt of the scaffold's app.test.ts as written", () => {
    expect(codeBlocks[1]?.length).toBeGreaterThan(200);
    expect(testSource('letter_count')).toContain(codeBlocks[1]);
  });
});
