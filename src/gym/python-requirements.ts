/**
 * What a Python server asks to have installed, read as upstream NeMo Gym 0.7.0's setup command reads it: one of
 * `requirements.txt` (with `overrides.txt` beside it) or `pyproject.toml`'s `[project].dependencies`, never both.
 * The line that installs nemo-gym itself (`-e nemo-gym[dev] @ ../..`, or a bare `nemo-gym`) is dropped: the server
 * gets the nemo-gym already installed in the interpreter it is layered on (python-environment.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { NgymError } from '../errors.ts';

export interface ServerRequirements {
  /** The file the requirements come from (named in every error). */
  source: string;
  /** The server's own requirement lines, in file order, nemo-gym's line removed. */
  lines: string[];
  /** `overrides.txt` beside `requirements.txt` (upstream passes it as `uv pip install --override`). */
  overridesFile: string | undefined;
}

/** A requirement line that installs nemo-gym: upstream drops every line containing `../..`; a bare name counts too. */
function installsNemoGym(line: string): boolean {
  return line.includes('../..') || /^(-e\s+)?nemo[-_]gym\b/i.test(line);
}

/** Blank lines and comments out, inline comments cut (pip's rule: ` #` starts one). */
function requirementLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, '').trim())
    .filter((line) => line !== '');
}

export function readServerRequirements(directory: string): ServerRequirements {
  const requirementsFile = join(directory, 'requirements.txt');
  const pyprojectFile = join(directory, 'pyproject.toml');
  const hasRequirements = existsSync(requirementsFile);
  const hasPyproject = existsSync(pyprojectFile);
  if (hasRequirements && hasPyproject) {
    throw new NgymError('NGYM_SERVER_START', `${directory} has both requirements.txt and pyproject.toml; a Python server declares its requirements in one of them (as upstream NeMo Gym requires).`);
  }
  if (hasRequirements) {
    const overridesFile = join(directory, 'overrides.txt');
    return {
      source: requirementsFile,
      lines: requirementLines(readFileSync(requirementsFile, 'utf8')).filter((line) => !installsNemoGym(line)),
      overridesFile: existsSync(overridesFile) ? overridesFile : undefined,
    };
  }
  if (hasPyproject) {
    let dependencies: unknown;
    try {
      dependencies = (parseToml(readFileSync(pyprojectFile, 'utf8')) as { project?: { dependencies?: unknown } }).project?.dependencies ?? [];
    } catch (error) {
      throw new NgymError('NGYM_SERVER_START', `${pyprojectFile} is not valid TOML: ${(error as Error).message}`);
    }
    if (!Array.isArray(dependencies) || dependencies.some((entry) => typeof entry !== 'string')) {
      throw new NgymError('NGYM_SERVER_START', `${pyprojectFile}: [project].dependencies must be a list of requirement strings.`);
    }
    return { source: pyprojectFile, lines: (dependencies as string[]).map((entry) => entry.trim()).filter((entry) => !installsNemoGym(entry)), overridesFile: undefined };
  }
  throw new NgymError('NGYM_SERVER_START', `${directory} has neither requirements.txt nor pyproject.toml: a Python server must say what it needs (a requirements.txt with \`-e nemo-gym[dev] @ ../..\` when nemo-gym is all).`);
}

/** The project name of a requirement line (`numpy==2.2.3` is numpy), normalized as PEP 503 does; undefined for URLs, paths and options. */
export function requirementName(line: string): string | undefined {
  const match = /^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(@|[<>=!~;]|$)/.exec(line);
  return match?.[1] === undefined ? undefined : normalizedName(match[1]);
}

export function normalizedName(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}
