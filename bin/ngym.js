#!/usr/bin/env node
// The installed package runs the compiled library in dist/. A checkout (src/ beside this folder) runs the
// TypeScript sources, with `import 'ngym'` resolved to src/ by the "ngym-source" export condition. Either way
// tsx is registered: the environments users write (and the bundled ones) are TypeScript loaded at run time.
import { existsSync } from 'node:fs';
import { register as registerHooks } from 'node:module';
import { basename } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const source = new URL('../src/cli/main.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  registerHooks(
    'data:text/javascript,export const resolve = (specifier, context, next) => next(specifier, { ...context, conditions: [...context.conditions, "ngym-source"] });',
  );
  cli = await import(source.href);
} else {
  cli = await import('../dist/src/cli/main.js');
}
try {
  cli.limitHeapGrowth();
} catch (error) {
  process.stderr.write(`Error: ${error.message}\n`);
  process.exit(1);
}
// Started by a test or a supervising program (with an IPC channel): its death ends this process too.
cli.endWithParent();
const invokedAs = basename(process.argv[1] ?? 'ngym').replace(/\.js$/, '');
const args = process.argv.slice(2);
// `gym` and `ng` are upstream 0.7.0's command tree; `ng_*` its older one-command scripts.
process.exitCode =
  invokedAs === 'gym' || invokedAs === 'ng' ? await cli.mainGym(args) : invokedAs.startsWith('ng_') ? await cli.mainForAlias(invokedAs, args) : await cli.main(args);
