/** `ngym view` (alias `ng_viewer`): browse a rollouts file in a local web viewer. */
import * as z from 'zod';
import { loadGlobalConfig } from '../../config/global-config.ts';
import { NgymError } from '../../errors.ts';
import { DEFAULT_VIEWER_PORT, startViewer } from '../../viewer/app.tsx';
import { type CliCommand, readParameters } from '../command.ts';

const Port = z.number().int().min(0).max(65535).nullable().optional();
const Host = z.string().min(1).nullable().optional();

const Parameters = z.object({
  jsonl_fpath: z.string().min(1).describe('The rollouts file (output of ngym collect).'),
  port: Port.describe(`Port (alias server_port); 0 picks a free one. Default ${DEFAULT_VIEWER_PORT}, or the next free one.`),
  server_port: Port.meta({ aliasOf: 'port' }),
  host: Host.meta({ description: 'Interface to listen on (alias server_host).', shownDefault: '127.0.0.1' }),
  server_host: Host.meta({ aliasOf: 'host' }),
  pass_threshold: z.number().default(1).describe('Reward at or above which a rollout passes (pass@k).'),
});

export const viewCommand: CliCommand = {
  name: 'view',
  summary: 'Browse a rollouts JSONL file in a local web viewer: filters, trajectories, reward histogram, pass@k.',
  description: `
Indexes the file (one pass, line offsets kept on the server; a 100 MB file is fine), then serves
http://127.0.0.1:<port>: an overview (rollout and task counts, reward histogram, pass@k per task and
overall, upstream's aggregate metrics), a table of rollouts filtered by reward, outcome, agent, task and
text, and each trajectory (messages, reasoning, tool calls with arguments and outputs, verify result).
Ctrl-C stops it.

Examples:
  ngym view +jsonl_fpath=results/example_multi_step_rollouts.jsonl
  ng_viewer +jsonl_fpath=results/rollouts.jsonl +server_port=8080`,
  parameters: Parameters,
  async run(args) {
    const parameters = readParameters(loadGlobalConfig({ overrides: args, envYamlPath: null }), Parameters);
    if (parameters.port != null && parameters.server_port != null && parameters.port !== parameters.server_port) {
      throw new NgymError('NGYM_USAGE', 'Give +port or +server_port, not both.');
    }
    process.stdout.write(`Indexing ${parameters.jsonl_fpath}...\n`);
    const started = Date.now();
    const viewer = await startViewer({
      path: parameters.jsonl_fpath,
      host: parameters.host ?? parameters.server_host ?? undefined,
      port: parameters.port ?? parameters.server_port ?? undefined,
      threshold: parameters.pass_threshold,
    });
    const invalid = viewer.index.rollouts.filter((rollout) => rollout.problem !== null).length;
    process.stdout.write(
      `Indexed ${viewer.index.size} rollouts (${(viewer.index.bytes / 1e6).toFixed(1)} MB) in ${((Date.now() - started) / 1000).toFixed(1)} s` +
        `${invalid > 0 ? `; ${invalid} lines are not valid rollouts (see "invalid lines")` : ''}.\n` +
        `Viewer: ${viewer.url}\nPress Ctrl-C to stop.\n`,
    );
    return await new Promise<number>((resolve) => {
      const stop = () => void viewer.close().then(() => resolve(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  },
};
