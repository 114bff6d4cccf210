/**
 * The CI sample of `npm run parity -- swebench-grading`: 200 seeded logs graded by ngym's grader and by the
 * swebench 4.1.0 package from the venv, every field equal. Skips, naming the reason, without the venv or swebench.
 */
import { describe, expect, it } from 'vitest';
import { LOG_PARSERS, PARSER_OF_REPOSITORY } from '../../resources_servers/swebench/grading/index.ts';
import { differingFields, gradingCases, ngymAnswer, swebenchAnswers, swebenchFacts, swebenchPython } from './part.ts';
import { SeededRandom as Random } from 'ngym';

const python = swebenchPython();
const unavailable = 'unavailable' in python ? python.unavailable : undefined;
const executable = 'executable' in python ? python.executable : '';

describe.skipIf(unavailable !== undefined)(`SWE-bench grading against swebench 4.1.0${unavailable === undefined ? '' : ` (skipped: ${unavailable})`}`, () => {
  const facts = unavailable === undefined ? swebenchFacts(executable) : { parsers: {}, versions: {} };

  it('maps every repository to the parser swebench maps it to', () => {
    const ours = Object.fromEntries(Object.entries(PARSER_OF_REPOSITORY).map(([repo, parser]) => [repo, `parse_log_${parser}`]));
    expect(ours).toEqual(facts.parsers);
  });

  it('200 seeded logs over every parser: the same statuses, report and resolution from both graders', { timeout: 120_000 }, () => {
    const cases = gradingCases(facts, new Random(11), 200);
    expect(new Set(cases.map((item) => item.instance.repo)).size).toBe(Object.keys(PARSER_OF_REPOSITORY).length);
    const answers = swebenchAnswers(executable, cases);
    const disagreements = cases.flatMap((item, index) => {
      const differing = differingFields(ngymAnswer(item), answers[index] as Parameters<typeof differingFields>[1]);
      return differing.length === 0 ? [] : [`${item.id} ${item.kind}: ${differing.join(',')}`];
    });
    expect(disagreements).toEqual([]);
    // The sample is not all failures or all refusals: some resolve, some do not complete.
    expect(answers.filter((answer) => answer.report?.resolved === true).length).toBeGreaterThan(10);
    expect(answers.filter((answer) => answer.report?.patch_successfully_applied === false).length).toBeGreaterThan(10);
  });
});

describe('SWE-bench grading cases', () => {
  const versions = Object.fromEntries(Object.keys(PARSER_OF_REPOSITORY).map((repo) => [repo, '1.0']));

  it('are the same for the same seed, and a shorter run is the start of a longer one', () => {
    const cases = gradingCases({ parsers: {}, versions }, new Random(5), 300);
    expect(JSON.stringify(gradingCases({ parsers: {}, versions }, new Random(5), 300))).toBe(JSON.stringify(cases));
    expect(JSON.stringify(gradingCases({ parsers: {}, versions }, new Random(5), 100))).toBe(JSON.stringify(cases.slice(0, 100)));
    expect(JSON.stringify(gradingCases({ parsers: {}, versions }, new Random(6), 300))).not.toBe(JSON.stringify(cases));
  });

  it('cover every parser a repository maps to, and every kind of damage', () => {
    const cases = gradingCases({ parsers: {}, versions }, new Random(5), 2000);
    const parsers = new Set(cases.map((item) => item.kind.split(':')[0]));
    expect([...parsers].sort()).toEqual([...new Set(Object.values(PARSER_OF_REPOSITORY))].sort());
    expect(new Set(cases.map((item) => item.kind.split(":")[1])).size).toBe(15);
    expect(Object.keys(LOG_PARSERS).length).toBeGreaterThan(parsers.size);
  });
});
