/**
 * The fields of upstream 0.7.0's rollout collection configs (`RolloutCollectionConfig`,
 * `SharedRolloutCollectionConfig`, `E2ERolloutCollectionConfig` in nemo_gym/rollout_collection.py) that
 * `ngym collect` cannot honour. Each is declared with its upstream type, so `--help` lists it, and a value other
 * than upstream's default is refused by name with the reason before anything starts: a knob silently ignored
 * would make a run differ from what its user asked for with nothing failing.
 */
import * as z from 'zod';
import { NgymError } from '../../errors.ts';

interface RefusedField {
  schema: z.ZodType;
  reason: string;
  /** Upstream's default, or another value that asks for nothing ngym lacks. */
  harmless: (value: unknown) => boolean;
}

const isNullish = (value: unknown) => value === null || value === undefined;
const isEmpty = (value: unknown) => isNullish(value) || (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && Object.keys(value as object).length === 0);
const ENVIRONMENT_ROUTING =
  "ngym's collector does not route rows through environment servers (materialized task_id.taskset rows, episode requests); every row goes through its agent (environment_routing_mode=agent, upstream's default)";
const END_TO_END =
  'a field of end-to-end collection (`gym eval run` serving its own servers and preparing the split); ngym collect collects +input_jsonl_fpath against a running gym: pass the prepared split file (`ngym prepare-data` writes it) as +input_jsonl_fpath';

const REFUSED: Record<string, RefusedField> = {
  rollout_collection_driver: {
    schema: z.string().nullable(),
    reason: "a Python function (module.path:function) that upstream awaits in its own process; ngym's collector is TypeScript and cannot run it",
    harmless: isNullish,
  },
  environment_routing_mode: {
    schema: z.enum(['agent', 'legacy', 'taskset']),
    reason: `'legacy' and 'taskset' need environment-server routing: ${ENVIRONMENT_ROUTING}`,
    harmless: (value) => isNullish(value) || value === 'agent',
  },
  environment_server_name: { schema: z.string().nullable(), reason: ENVIRONMENT_ROUTING, harmless: isNullish },
  environment_server_routes: { schema: z.record(z.string(), z.string()), reason: ENVIRONMENT_ROUTING, harmless: isEmpty },
  dispatch_longest_first: {
    schema: z.boolean(),
    reason: "upstream reads its whole plan (<stem>_materialized_inputs.jsonl) before it starts and puts the retries with the longest recorded attempts first; ngym streams its input, so the rows to retry are met in file order and cannot be moved ahead of those read before them",
    harmless: (value) => isNullish(value) || value === false,
  },
  skills: {
    schema: z.object({ path: z.string() }).nullable(),
    reason: "ngym's agents take no run-level skills directory, so a skills_ref stamped on the rows would claim skills no agent was given",
    harmless: isNullish,
  },
  split: { schema: z.enum(['train', 'validation', 'benchmark']), reason: END_TO_END, harmless: isNullish },
  reuse_existing_data_preparation: { schema: z.boolean(), reason: END_TO_END, harmless: (value) => isNullish(value) || value === false },
};

/** The refused fields as parameters, for the help (and so that their values are type-checked as upstream's). */
export const RefusedParameters = Object.fromEntries(
  Object.entries(REFUSED).map(([key, field]) => [key, field.schema.optional().meta({ description: `Refused by ngym: ${field.reason}.` })]),
) as Record<string, z.ZodOptional<z.ZodType>>;

/** Throws, naming every refused field the run asks for and why, before anything starts. */
export function refuseUnsupportedFields(parameters: Record<string, unknown>): void {
  const asked = Object.entries(REFUSED).filter(([key, field]) => !field.harmless(parameters[key]));
  if (asked.length === 0) return;
  const lines = asked.map(([key, field]) => `  - +${key}=${JSON.stringify(parameters[key])}: ${field.reason}.`);
  throw new NgymError('NGYM_USAGE', `ngym collect cannot honour these fields of upstream's rollout collection config, so nothing was started:\n${lines.join('\n')}`);
}
