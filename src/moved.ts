/**
 * Names that docs/api.md listed under `ngym` before they moved to a subpath (the architecture change of
 * 2026-11-26): still importable from `ngym`, marked deprecated so that an editor names their new home. The
 * project's own code imports them from the subpath; public-api.test.ts allows no other name here.
 */
export {
  /** @deprecated Import from 'ngym/runtime'. */
  launch,
  /** @deprecated Import from 'ngym/runtime'. */
  hostServer,
  /** @deprecated Import from 'ngym/runtime'. */
  bindServer,
  /** @deprecated Import from 'ngym/runtime'. */
  createHeadServerApp,
  /** @deprecated Import from 'ngym/runtime'. */
  loadGlobalConfig,
  /** @deprecated Import from 'ngym/runtime'. */
  globalConfigFromDict,
  /** @deprecated Import from 'ngym/runtime'. */
  type GlobalConfig,
  /** @deprecated Import from 'ngym/runtime'. */
  collectRollouts,
  /** @deprecated Import from 'ngym/runtime'. */
  RolloutCollection,
  /** @deprecated Import from 'ngym/runtime'. */
  createProgressReporter,
} from './runtime.ts';
export {
  /** @deprecated Import from 'ngym/metrics'. */
  computeMetrics,
  /** @deprecated Import from 'ngym/metrics'. */
  passAtK,
  /** @deprecated Import from 'ngym/metrics'. */
  computeAggregateMetrics,
  /** @deprecated Import from 'ngym/metrics'. */
  computePassMajorityMetrics,
  /** @deprecated Import from 'ngym/metrics'. */
  addAverageSampleStdDev,
  /** @deprecated Import from 'ngym/metrics'. */
  computeSubsetMetrics,
  /** @deprecated Import from 'ngym/metrics'. */
  highestKMetrics,
  /** @deprecated Import from 'ngym/metrics'. */
  pickMetrics,
} from './metrics/index.ts';
export {
  /** @deprecated Import from 'ngym/data'. */
  prepareData,
} from './data/index.ts';
export {
  /** @deprecated Import from 'ngym/python-compat'. */
  PythonRegex,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonJsonDumps,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonJsonLoads,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonStrip,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonLstrip,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonRstrip,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonSplit,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonSplitlines,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonLength,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonSlice,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonIsAlpha,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonIsUpper,
  /** @deprecated Import from 'ngym/python-compat'. */
  pythonIsLower,
} from './python-compat/index.ts';
