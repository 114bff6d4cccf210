/** `ngym prepare-data` (alias `ng_prepare_data`): validate datasets, compute their metrics, collate them for training. */
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { DATA_SOURCES, PREPARE_MODES, prepareData } from '../../data/prepare-data.ts';
import { type CliCommand, readParameters } from '../command.ts';
import { readElsewhere } from '../parameters.ts';

const Parameters = z.object({
  config_paths: readElsewhere(z.array(z.string()), 'Config files whose agents list the datasets.'),
  output_dirpath: z.string().min(1).describe('Where <type>.jsonl and <type>_metrics.json are written.'),
  mode: z.enum(PREPARE_MODES).describe('Which dataset types to prepare.'),
  should_download: z.boolean().default(false).describe('Download missing datasets.'),
  data_source: z.enum(DATA_SOURCES).default('huggingface').describe('Where missing datasets come from (gitlab is not supported).'),
  skip_invalid_rows: z.boolean().default(false).describe('Leave invalid rows out (they are still reported) instead of failing.'),
  overwrite_metrics_conflicts: z.boolean().default(false).describe('Replace committed metrics that differ instead of failing.'),
  hf_token: readElsewhere(z.string().optional(), 'Hugging Face token for downloads (usually in env.yaml).'),
  hf_endpoint: readElsewhere(z.string().optional(), 'Hugging Face Hub URL (default $HF_ENDPOINT or https://huggingface.co).'),
});

/** Upstream parses this command's config with the policy_* keys preset, so model configs resolve without env.yaml. */
const NO_MODEL_CONFIG = { policy_base_url: '', policy_api_key: '', policy_model_name: '' };

export const prepareDataCommand: CliCommand = {
  name: 'prepare-data',
  summary: 'Validate datasets, compute their metrics, and collate train/validation (or example) data with agent_ref.',
  description: `
For every agent in the config with datasets of the mode's types (train_preparation: train and validation;
example_validation: example), checks the files exist (or downloads them from Hugging Face), validates
every row (each invalid row is reported as file:line: reason), computes the dataset metrics and compares
them with the committed <stem>_metrics.json (within upstream's tolerance; a difference writes
<stem>_metrics_conflict.json and fails). Then writes <output_dirpath>/<type>_metrics.json and
<output_dirpath>/<type>.jsonl: every row with agent_ref = {type: responses_api_agents, name: <agent>},
so one collated file can train several environments.

Examples:
  ngym prepare-data "+config_paths=[resources_servers/example_multi_step/configs/example_multi_step.yaml,responses_api_models/openai_model/configs/openai_model.yaml]" \\
    +output_dirpath=data/example_multi_step +mode=example_validation
  ngym prepare-data "+config_paths=[resources_servers/my_env/configs/my_env.yaml,responses_api_models/openai_model/configs/openai_model.yaml]" \\
    +output_dirpath=data/train +mode=train_preparation +should_download=true     # hf_token in env.yaml

The model config only completes the agents' references (policy_* keys are preset to "", as upstream).`,
  parameters: Parameters,
  async run(args) {
    const globalConfig = loadGlobalConfig({ overrides: args, initialConfig: NO_MODEL_CONFIG });
    const parameters = readParameters(globalConfig, Parameters);
    await prepareData({
      globalConfig,
      outputDir: parameters.output_dirpath,
      mode: parameters.mode,
      shouldDownload: parameters.should_download,
      dataSource: parameters.data_source,
      skipInvalidRows: parameters.skip_invalid_rows,
      overwriteMetricsConflicts: parameters.overwrite_metrics_conflicts,
      print: (text) => process.stdout.write(text),
    });
    return 0;
  },
};
