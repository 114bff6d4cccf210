/**
 * The package's public face (docs/api.md): the main entry `ngym` holds what an environment's author needs and
 * nothing internal. Every name it exports must be declared in an authoring wing; names that moved to a subpath
 * stay importable from `ngym` only as deprecated re-exports (src/moved.ts) of what that subpath exports.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from './util/package-root.ts';

const SUBPATHS: Record<string, string> = {
  ngym: 'src/index.ts',
  'ngym/runtime': 'src/runtime.ts',
  'ngym/metrics': 'src/metrics/index.ts',
  'ngym/data': 'src/data/index.ts',
  'ngym/python-compat': 'src/python-compat/index.ts',
  'ngym/testing': 'src/testing/index.ts',
};

/** Where the main entry's names may be declared: the authoring API, the protocol, the client, judges, verifiers. */
const AUTHORING = [
  /^src\/(agent|client|judge|math|protocol|sandbox)\//,
  /^src\/server\/(?!serve\.ts$)/,
  /^src\/errors\.ts$/,
  /^src\/config\/(schemas|tree)\.ts$/,
  /^src\/util\/(async-queue|logger|seeded-random|semaphore|worker-pool)\.ts$/,
];

interface Exported {
  name: string;
  /** The file that declares it, relative to the package root. */
  declaredIn: string;
}

let program: ts.Program;
let checker: ts.TypeChecker;

function exportsOf(file: string): Exported[] {
  const source = program.getSourceFile(join(PACKAGE_ROOT, file));
  if (source === undefined) throw new Error(`${file} is not in the program`);
  const module = checker.getSymbolAtLocation(source) as ts.Symbol;
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const declaration = target.declarations?.[0]?.getSourceFile().fileName ?? '';
    return { name: symbol.name, declaredIn: declaration.slice(PACKAGE_ROOT.length + 1) };
  });
}

beforeAll(() => {
  const files = Object.values(SUBPATHS).map((file) => join(PACKAGE_ROOT, file));
  program = ts.createProgram(files, {
    allowImportingTsExtensions: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    jsx: ts.JsxEmit.ReactJSX,
    jsxImportSource: 'hono/jsx',
    customConditions: ['ngym-source'],
    skipLibCheck: true,
  });
  checker = program.getTypeChecker();
}, 120_000);

describe('the public API', () => {
  it('the main entry exports no internal name', () => {
    const moved = new Set(exportsOf('src/moved.ts').map((exported) => exported.name));
    const leaks = exportsOf(SUBPATHS.ngym as string)
      .filter((exported) => !moved.has(exported.name) && !AUTHORING.some((wing) => wing.test(exported.declaredIn)))
      .map((exported) => `${exported.name} (${exported.declaredIn})`);
    expect(leaks, 'internal names in the main entry: export them from a subpath (src/runtime.ts, ...) instead').toEqual([]);
    for (const internal of ['RunningGym', 'hostServer', 'ReplicaRegistry', 'RolloutIndex', 'MetricsAccumulator']) {
      expect(moved.has(internal) || !exportsOf(SUBPATHS.ngym as string).some((exported) => exported.name === internal), internal).toBe(true);
    }
  });

  it("each moved name is deprecated and is exported by the subpath its notice names", () => {
    const text = readFileSync(join(PACKAGE_ROOT, 'src/moved.ts'), 'utf8');
    const notices = [...text.matchAll(/\/\*\* @deprecated Import from '([^']+)'\. \*\/\n\s+(?:type )?(\w+),/g)].map((match) => ({ subpath: match[1] as string, name: match[2] as string }));
    const moved = exportsOf('src/moved.ts').map((exported) => exported.name);
    expect(notices.map((notice) => notice.name).sort()).toEqual([...moved].sort());
    for (const { subpath, name } of notices) {
      expect(Object.keys(SUBPATHS), subpath).toContain(subpath);
      expect(exportsOf(SUBPATHS[subpath] as string).map((exported) => exported.name), `${name} in ${subpath}`).toContain(name);
    }
  });

  it('every subpath is in package.json exports, resolving to its source and its compiled files', () => {
    const packageJson = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { exports: Record<string, Record<string, string> | string> };
    for (const [subpath, file] of Object.entries(SUBPATHS)) {
      const key = subpath === 'ngym' ? '.' : `./${subpath.slice('ngym/'.length)}`;
      const compiled = file.replace(/\.ts$/, '');
      expect(packageJson.exports[key], subpath).toEqual({ 'ngym-source': `./${file}`, types: `./dist/${compiled}.d.ts`, default: `./dist/${compiled}.js` });
    }
  });
});
