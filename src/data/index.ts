/** `ngym/data`: dataset tooling: prepare-data, dataset validation and metrics, downloads from the Hugging Face Hub. */
export {
  type AggregatedDatasetMetrics,
  DatasetMetrics,
  DatasetTypeMetrics,
  type ExtraMetric,
  jsonDumpedWordCount,
  type StringCounts,
} from './dataset-metrics.ts';
export { type DatasetLine, formatInvalidRow, type InvalidRow, readDatasetLines, rowProblem } from './dataset-rows.ts';
export { countLines, environmentDataProblems, EXAMPLE_ROWS } from './environment-data.ts';
export {
  DEFAULT_HF_ENDPOINT,
  downloadHubFile,
  downloadHubSplit,
  type HubFile,
  type HuggingFaceOptions,
  listHubFiles,
  splitFiles,
} from './huggingface.ts';
export { diffMetrics, numericClose } from './metrics-conflicts.ts';
export {
  type AgentDatasets,
  agentDatasets,
  computeDatasetMetrics,
  DATA_SOURCES,
  type DataSource,
  inScopeTypes,
  PREPARE_MODES,
  type PrepareDataOptions,
  type PrepareDataResult,
  type PrepareMode,
  prepareData,
} from './prepare-data.ts';
