/**
 * Which experiment trackers a run logs to, read from top-level keys named as upstream's (`wandb_*`, `mlflow_*`,
 * `upload_rollouts`). A tracker is on when every key it needs is set, as upstream decides it; nothing else
 * switches it on. Two keys are ngym's: the time all tracking may take, and how many rollouts are uploaded.
 */
import * as z from 'zod';
import type { GlobalConfig } from '../config/global-config.ts';
import { REDACTED } from '../config/redact.ts';
import { ConfigError } from '../errors.ts';
import { parseReportingInput, validationDetails } from '../protocol/validation.ts';

const optionalText = z.string().min(1).nullable().optional();

const TrackingKeys = z.object({
  wandb_project: optionalText,
  wandb_name: optionalText,
  wandb_api_key: optionalText,
  mlflow_tracking_uri: z
    .string()
    .regex(/^https?:\/\/[^/]/, 'must be the http(s) URL of a tracking server, e.g. http://127.0.0.1:5000')
    .nullable()
    .optional(),
  mlflow_tracking_token: optionalText,
  mlflow_experiment_name: optionalText,
  mlflow_run_name: optionalText,
  upload_rollouts: z.boolean().optional(),
  /** Upstream's older name of `upload_rollouts`; an explicit `upload_rollouts` wins. */
  upload_rollouts_to_wandb: z.boolean().optional(),
  upload_rollouts_limit: z.number().int().min(0).default(1000),
  tracking_timeout_seconds: z.number().positive().default(60),
});

export interface MlflowSettings {
  trackingUri: string;
  token: string | undefined;
  experimentName: string;
  runName: string;
}

export interface WandbSettings {
  project: string;
  name: string;
  apiKey: string;
  /** The W&B server: WANDB_BASE_URL, as the wandb SDK reads it, else W&B's cloud. */
  baseUrl: string;
}

export interface TrackingSettings {
  mlflow: MlflowSettings | undefined;
  wandb: WandbSettings | undefined;
  /** Rollouts uploaded per tracker (the first ones in (task, rollout) order); 0 when upload_rollouts is false. */
  rolloutLimit: number;
  timeoutMs: number;
}

/** A masked key (a config that was printed redacted, then reused) cannot log in: the tracker stays off, as upstream. */
const usable = (value: string | null | undefined): value is string => typeof value === 'string' && value !== '' && value !== REDACTED && value !== '****';

/** The trackers the config switches on; throws a ConfigError naming the key when a value is malformed. */
export function trackingSettings(globalConfig: GlobalConfig, environment: NodeJS.ProcessEnv = process.env): TrackingSettings {
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(TrackingKeys.shape)) {
    const value = globalConfig.resolvedValue([key]);
    if (value !== undefined) values[key] = value;
  }
  const parsed = parseReportingInput(TrackingKeys, values);
  if (!parsed.success) {
    const details = validationDetails(parsed.error, []);
    const problems = details.map((detail) => `+${detail.loc.join('.')}: ${detail.msg}`);
    throw new ConfigError('NGYM_CONFIG_INVALID', `Experiment tracking settings are invalid: ${problems.join('; ')}`, { key: details[0]?.loc.join('.') });
  }
  const keys = parsed.data;
  const mlflowOn = usable(keys.mlflow_tracking_uri) && usable(keys.mlflow_experiment_name) && usable(keys.mlflow_run_name) && keys.mlflow_tracking_token !== REDACTED;
  const wandbOn = usable(keys.wandb_project) && usable(keys.wandb_name) && usable(keys.wandb_api_key);
  const uploadRollouts = keys.upload_rollouts ?? keys.upload_rollouts_to_wandb ?? true;
  return {
    mlflow: mlflowOn
      ? { trackingUri: (keys.mlflow_tracking_uri as string).replace(/\/+$/, ''), token: keys.mlflow_tracking_token ?? undefined, experimentName: keys.mlflow_experiment_name as string, runName: keys.mlflow_run_name as string }
      : undefined,
    wandb: wandbOn
      ? { project: keys.wandb_project as string, name: keys.wandb_name as string, apiKey: keys.wandb_api_key as string, baseUrl: (environment.WANDB_BASE_URL || 'https://api.wandb.ai').replace(/\/+$/, '') }
      : undefined,
    rolloutLimit: uploadRollouts ? keys.upload_rollouts_limit : 0,
    timeoutMs: keys.tracking_timeout_seconds * 1000,
  };
}
