// The dependency rule (`npm run depcruise`, CI suite "dependencies"): imports go down the layers of
// docs/architecture.md and never back up, the framework imports no environment, and production code imports no
// test helper. Tests (*.test.ts) may import anything.
/** The wings of src/, lowest first: a module may import its own wing and those listed before it. */
const LAYERS = [
  ['errors\\.ts', 'util'],
  ['python-compat'],
  ['protocol'],
  ['config'],
  ['telemetry'],
  ['client'],
  ['metrics'],
  ['server'],
  ['agent', 'judge', 'math', 'sandbox'],
  ['gym'],
  ['rollouts'],
  ['data'],
  ['viewer'],
  ['exporters'],
  ['cli'],
  ['testing', 'runtime\\.ts', 'moved\\.ts', 'index\\.ts'],
];
const wing = (names) => `^src/(${names.join('|')})($|/)`;
const TESTS = '(\\.test\\.tsx?$|/__fixtures__/)';
const ENVIRONMENTS = '^(resources_servers|responses_api_agents|responses_api_models|environment_servers)/';

const layerRules = LAYERS.slice(0, -1).map((names, index) => ({
  name: `layer-${names.join('-').replaceAll('\\.', '.')}`,
  comment: `src/{${names.join(',')}} sits below ${LAYERS.slice(index + 1).flat().join(', ')}: it must not import them (docs/architecture.md).`,
  severity: 'error',
  from: { path: wing(names), pathNot: TESTS },
  to: { path: wing(LAYERS.slice(index + 1).flat()) },
}));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'framework-imports-no-environment',
      comment: 'src/ depends on no environment: an environment ships in its folder and is loaded by path (entrypoint, cli.ts).',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: ENVIRONMENTS },
    },
    {
      name: 'no-test-helpers-in-production',
      comment: 'src/testing/ is for tests (published as ngym/testing); production code must not import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: [TESTS, '^src/testing/'] },
      to: { path: '^src/testing/' },
    },
    {
      name: 'environments-use-the-package',
      comment: "Environments import the framework as a package ('ngym', 'ngym/runtime', ...), not by relative path into src/.",
      severity: 'error',
      from: { path: ENVIRONMENTS, pathNot: TESTS },
      to: { path: '^src/', dependencyTypes: ['local'] },
    },
    {
      name: 'benchmarks-are-the-top-floor',
      comment: 'bench/ measures everything else; nothing imports it. Helpers the developer tools share (bench, catalog, faults, parity) live in scripts/lib/.',
      severity: 'error',
      from: { path: '^(?!bench/)', pathNot: TESTS },
      to: { path: '^bench/' },
    },
    {
      name: 'shared-tool-helpers-stay-low',
      comment: 'scripts/lib/ holds what the developer tools share (process trees): it imports none of them.',
      severity: 'error',
      from: { path: '^scripts/lib/' },
      to: { path: '^(bench|catalog|faults|parity)/' },
    },
    {
      name: 'no-circular',
      comment: 'A cycle of imports makes load order matter and wings inseparable.',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(node_modules|dist|\\.node)/' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { conditionNames: ['ngym-source', 'import', 'node', 'default'], exportsFields: ['exports'] },
  },
};
