/**
 * Where ngym runs from. A checkout runs the TypeScript sources (src/ under tsx); the published package runs
 * the compiled JavaScript in dist/src/ (`npm run build`). Both layouts share these answers.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether this is the TypeScript source (a checkout) rather than the compiled dist/. */
const RUNS_FROM_SOURCE = import.meta.url.endsWith('.ts');

/** Absolute path of the ngym package (the folder holding package.json), wherever it is installed. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), ...(RUNS_FROM_SOURCE ? ['..', '..'] : ['..', '..', '..']));

/**
 * The package.json export condition that maps `import 'ngym'` to src/ instead of dist/. Processes and threads
 * ngym starts from a checkout pass it to Node (`SOURCE_NODE_ARGS`), so environments there use the sources.
 */
const SOURCE_CONDITION = 'ngym-source';
export const SOURCE_NODE_ARGS: readonly string[] = RUNS_FROM_SOURCE ? [`--conditions=${SOURCE_CONDITION}`] : [];

/** A module beside `moduleUrl` by its name without extension: `name.ts` in a checkout, `name.js` when compiled. */
export function siblingModule(moduleUrl: string, name: string): URL {
  return new URL(`./${name}${RUNS_FROM_SOURCE ? '.ts' : '.js'}`, moduleUrl);
}
