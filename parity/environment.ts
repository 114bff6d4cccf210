/** What the harness needs to know of an environment to run it on both sides and compare the answers. */
import type { ParityCase } from './cases.ts';
import type { SideResult } from './compare.ts';
import type { PythonSetup } from './gym.ts';
import type { SeededRandom as Random } from 'ngym';

export interface ParityEnvironment {
  /** The folder under resources_servers/, the same in ngym and in upstream's wheel. */
  name: string;
  /** The server instance (and result) name when it is not `name`: one environment run in two setups. */
  instance?: string;
  /** ngym's config file (under resources_servers/<name>/configs/) and upstream's (in the wheel's). */
  configs: { ngym: string; upstream: string };
  /** Keys set on both servers' config (e.g. the library path of math_with_judge); a function when they name venv paths. */
  overrides?: Record<string, unknown> | ((python: PythonSetup) => Record<string, unknown>);
  /** Keys set on upstream's server only (its own settings ngym has no key for). */
  upstreamOverrides?: Record<string, unknown>;
  /** Other server instances the run needs (a model server the config must name), by instance name. */
  servers?: Record<string, unknown>;
  /**
   * Why upstream's server cannot run on this machine (a package CI cannot install), or undefined when it can: the
   * harness then skips the environment with this reason rather than failing.
   */
  unavailable?(python: PythonSetup): string | undefined;
  /** The generator runs the venv's Python (reasoning_gym's rows come from its library): its tests need the venv. */
  generatorNeedsPython?: boolean;
  /** Time limit of one request to a server (default 60 s): a library scorer that takes minutes needs more. */
  timeoutMs?: number;
  /** The verify fields compared besides `reward` (timings are never listed). */
  fields: readonly string[];
  /** The verify answer as compared: drops what a compared field holds that may differ by run (a timing inside it). */
  normalize?: (body: Record<string, unknown>) => Record<string, unknown>;
  /**
   * Names a disagreement whose cause is known (an upstream crash ngym does not copy, ...): it still counts as a
   * disagreement, grouped under this name instead of the differing fields.
   */
  knownCause?: (ngym: SideResult, upstream: SideResult) => string | undefined;
  /** `count` cases from the seeded source; the same seed gives the same cases. */
  generate(random: Random, count: number): ParityCase[];
}

/** The instance name of ngym's server for an environment; upstream's is this with `_upstream`. */
export const instanceOf = (environment: ParityEnvironment): string => environment.instance ?? environment.name;
