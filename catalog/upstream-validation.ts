/**
 * Whether upstream 0.7.0 itself refuses one of its configs: its own `ng_dump_config` (which validates every server
 * entry as `ng_run` does) on the config with its openai_model as the policy model, run from the wheel's folder.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { upstreamWheel } from '../src/testing/upstream-wheel.ts';

/** true: upstream reports an almost-server too; false: it accepts the config; undefined: it could not be asked. */
export function upstreamValidationRefuses(config: string, sitePackages: string): Promise<boolean | undefined> {
  const { venv } = upstreamWheel();
  const args = [
    `+config_paths=[${config},${join(sitePackages, 'responses_api_models', 'openai_model', 'configs', 'openai_model.yaml')}]`,
    '+policy_base_url=http://127.0.0.1:1/v1',
    '+policy_api_key=catalog',
    '+policy_model_name=catalog',
  ];
  return new Promise((resolve) => {
    const child = spawn(join(venv, 'bin', 'ng_dump_config'), args, { cwd: sitePackages, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (/almost-server\(s\) with validation errors/i.test(output.replace(/\s+/g, ' '))) resolve(true);
      else resolve(code === 0 ? false : undefined);
    });
  });
}
