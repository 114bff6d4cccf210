/**
 * The `gym` tree's shape against upstream 0.7.0's (its parser, read from the project's venv when present),
 * every leaf's help, the commands that only answer with an error, and the catalog commands. In process:
 * mainGym is what `npx gym` and `npx ng` run (bin/ngym.js picks it by the name it is invoked as).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureOutput } from './__fixtures__/captured-output.ts';
import { PACKAGE_ROOT } from '../../util/package-root.ts';
import { commandMapping, GROUPS, mainGym } from './tree.ts';

const printed = captureOutput();

const PYTHON = join(PACKAGE_ROOT, '.venv', 'bin', 'python');
const LEAVES = commandMapping().map((row) => row.gym.replace(/^gym /, ''));

/** Upstream's commands and each one's option strings, from its argparse tree. */
function upstreamTree(): Record<string, string[]> {
  const script = [
    'import argparse, json',
    'from nemo_gym.cli.main import COMMANDS',
    'out = {}',
    'for name, command in COMMANDS.items():',
    '    parser = argparse.ArgumentParser(add_help=False)',
    '    for flag in command.flags: flag.register(parser)',
    '    out[name] = [option for action in parser._actions for option in action.option_strings]',
    'print(json.dumps(out))',
  ].join('\n');
  const result = spawnSync(PYTHON, ['-c', script], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(result.stderr);
  return JSON.parse(result.stdout) as Record<string, string[]>;
}

describe('gym --help', () => {
  it("lists upstream 0.7.0's groups and top-level commands", async () => {
    expect(await mainGym(['--help'])).toBe(0);
    for (const name of ['list', 'search', 'dataset', 'env', 'eval', 'dev']) expect(printed.out).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    expect(Object.keys(GROUPS)).toEqual(['list', 'dataset', 'env', 'eval', 'dev']);
  });

  it('prints the help and exits 1 without a command, as upstream', async () => {
    expect(await mainGym([])).toBe(1);
    expect(printed.out).toContain('Usage: gym');
  });

  it.each(LEAVES)('gym %s --help describes the command and its flags', async (leaf) => {
    expect(await mainGym([...leaf.split(' '), '--help'])).toBe(0);
    const row = commandMapping().find((candidate) => candidate.gym === `gym ${leaf}`);
    expect(printed.out).toContain(`Usage: gym ${leaf}`);
    expect(printed.out.replace(/\s+/g, ' ')).toContain((row?.summary as string).replace(/\s+/g, ' ').slice(0, 40));
  });

  it('rejects an unknown command or flag with a suggestion, exit 2', async () => {
    expect(await mainGym(['env', 'strat'])).toBe(2);
    expect(printed.err).toContain("unknown command 'strat'");
    expect(await mainGym(['env', 'start', '--modle', 'x'])).toBe(2);
    expect(printed.err).toContain("unknown option '--modle'");
  });

  it.skipIf(!existsSync(PYTHON))("has every command and flag of upstream's tree (project venv)", async () => {
    const upstream = upstreamTree();
    expect([...LEAVES].sort()).toEqual(Object.keys(upstream).sort());
    const missing: string[] = [];
    for (const [command, options] of Object.entries(upstream)) {
      printed.out = '';
      expect(await mainGym([...command.split(' '), '--help'])).toBe(0);
      const ours = new Set([...printed.out.matchAll(/(?:^|[\s,])(--?[a-z][a-z0-9-]*)/gm)].map((match) => match[1]));
      missing.push(...options.filter((option) => !ours.has(option)).map((option) => `gym ${command} ${option}`));
    }
    expect(missing).toEqual([]);
  }, 60_000);
});

describe('commands that need NVIDIA services answer with a clear error', () => {
  it.each([
    [['dataset', 'upload', '-i', 'x.jsonl'], 'ngym does not upload datasets'],
    [['dataset', 'rm', '--name', 'x'], 'GitLab'],
    [['dataset', 'migrate'], 'GitLab'],
    [['dataset', 'download', '--storage', 'gitlab', '--name', 'x'], 'GitLab'],
    [['env', 'publish', 'mcqa'], 'no catalog to publish to'],
    [['eval', 'submit', '-c', 'job.yaml'], 'cluster scheduler'],
    [['eval', 'export', '--format', 'atif', '--rollouts', 'r.jsonl'], "each rollout's `ng_trajectory` record"],
  ])('gym %j', async (args, message) => {
    expect(await mainGym(args)).toBe(1);
    expect(printed.err).toContain(message);
  });
});

describe("flags ngym cannot honour are refused by name, with the reason", () => {
  it.each([
    [['env', 'packages', '--resources-server', 'mcqa', '--outdated'], '--outdated: a server\'s packages are the project\'s npm dependencies; `npm outdated`'],
    [['env', 'test', 'mcqa', '--update-expected'], '--update-expected: ngym servers have no verifier fixtures'],
    [['env', 'test', 'aime24', '--kind', 'benchmark'], "--kind benchmark: a benchmark runs on its environment's servers"],
    [['env', 'validate', '--manifest', 'environments/mcqa/manifest.yaml'], '--manifest: ngym validates configs'],
    [['env', 'validate', 'mcqa', '--sync'], '--sync: ngym keeps no composition mirrors'],
  ])('gym %j', async (args, message) => {
    expect(await mainGym(args)).toBe(1);
    expect(printed.err).toContain(message);
  });
});

describe('gym list and gym search', () => {
  it('lists every environment package with its domain and description', async () => {
    expect(await mainGym(['list', 'environments', '--json'])).toBe(0);
    const listed = JSON.parse(printed.out) as { name: string; domain: string; configs: string[] }[];
    expect(listed.map((entry) => entry.name)).toEqual(expect.arrayContaining(['example_single_tool_call', 'mcqa', 'math_with_judge', 'workplace_assistant']));
    expect(listed.find((entry) => entry.name === 'mcqa')).toMatchObject({ domain: 'knowledge', configs: ['environments/mcqa/config.yaml'] });
  });

  it('inspects one component, and suggests a name for a typo', async () => {
    expect(await mainGym(['list', 'environments', 'mcqa'])).toBe(0);
    expect(printed.out).toContain('mcqa_simple_agent: example (example) resources_servers/mcqa/data/example.jsonl');
    expect(await mainGym(['list', 'resources-servers', 'mcqq'])).toBe(1);
    expect(printed.err).toContain("No resources-server named 'mcqq' (did you mean `mcqa`?)");
  });

  it('lists agents and models, and filters by domain (benchmarks: benchmark.test.ts)', async () => {
    expect(await mainGym(['list', 'agents'])).toBe(0);
    expect(printed.out).toMatch(/^simple_agent\b/m);
    expect(await mainGym(['list', 'models'])).toBe(0);
    expect(printed.out).toMatch(/^replay_model\b/m);
    printed.out = '';
    expect(await mainGym(['list', 'environments', '--domain', 'math', '--json'])).toBe(0);
    expect((JSON.parse(printed.out) as { domain: string }[]).every((entry) => entry.domain === 'math')).toBe(true);
    // ngym's own environments have no manifest.yaml: a manifest facet matches none of them, and says why.
    printed.out = '';
    expect(await mainGym(['list', 'environments', '--modality', 'text', '--json'])).toBe(0);
    expect(JSON.parse(printed.out)).toEqual([]);
    expect(printed.err).toMatch(/Warning: \d+ catalog entries have no modality metadata and could not be matched/);
    printed.out = '';
    expect(await mainGym(['list', 'environments', '--status', 'no-manifest', '--json'])).toBe(0);
    expect((JSON.parse(printed.out) as { name: string }[]).map((entry) => entry.name)).toContain('mcqa');
  });

  it('searches environments by default, or the type given', async () => {
    expect(await mainGym(['search', 'math', '--json'])).toBe(0);
    const found = (JSON.parse(printed.out) as { name: string }[]).map((entry) => entry.name);
    expect(found).toEqual(expect.arrayContaining(['math_with_judge', 'math_with_code']));
    expect(found).not.toContain('mcqa');
    printed.out = '';
    expect(await mainGym(['search', 'models', 'replay'])).toBe(0);
    expect(printed.out).toMatch(/^replay_model\b/m);
    expect(await mainGym(['search'])).toBe(1);
    expect(printed.err).toContain('gym search needs a query');
  });
});

describe('docs/cli.md', () => {
  it('maps every upstream command to ngym in its table, as the tree does', () => {
    const docs = readFileSync(join(PACKAGE_ROOT, 'docs', 'cli.md'), 'utf8');
    for (const row of commandMapping()) expect(docs).toContain(`| \`${row.gym}\` | ${row.ngym} |`);
  });
});
