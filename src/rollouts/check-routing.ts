/**
 * What upstream 0.7.0 refuses about a `num_repeats` map only once it has read the rows: a row that no entry
 * matches (and no `_default`) stops the run, and entries no row matched are warned of as likely typos. ngym
 * streams its input, so for an input file it reads the rows once through the same router before anything
 * starts; the run then reuses that router, so its warnings are not repeated.
 */
import { NgymError } from '../errors.ts';
import { pythonStringRepr } from '../python-compat/python-json.ts';
import { AgentRouter, DEFAULT_AGENT_KEY, type RoutingRules } from './agent-routing.ts';
import { readTasks, type TaskSourceOptions } from './task-source.ts';

export async function checkRepeatsCoverage(
  options: Omit<TaskSourceOptions, 'router' | 'onInvalid'>,
  rules: RoutingRules,
): Promise<AgentRouter | undefined> {
  if (typeof rules.numRepeats === 'number' || typeof options.input !== 'string') return undefined;
  const router = new AgentRouter(rules, options.onWarning);
  // Invalid lines are the run's to report; here only the routing matters.
  for await (const _task of readTasks({ ...options, router, onInvalid: () => {} }));
  const listed = Object.keys(rules.numRepeats).filter((key) => key !== DEFAULT_AGENT_KEY).sort();
  if (router.missingRepeats.size > 0) {
    throw new NgymError(
      'NGYM_USAGE',
      `num_repeats dict has no entry for routing keys ${pythonList([...router.missingRepeats].sort())} and no '_default' fallback. Listed keys: ${pythonList(listed)}`,
    );
  }
  const unused = router.unusedRepeatKeys();
  if (unused.length > 0) options.onWarning(`num_repeats dict contains agent names that never appeared in input rows (possible typo?): ${pythonList(unused)}`);
  return router;
}

function pythonList(items: string[]): string {
  return `[${items.map(pythonStringRepr).join(', ')}]`;
}
