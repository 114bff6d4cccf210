import { describe, expect, it } from 'vitest';
import { judgementParsingMetrics } from './parsing-metrics.ts';

const labels = { equal: '[[A=B]]', notEqual: '[[A!=B]]' };
const reply = (text: unknown, status = 'completed') => ({ status, output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] }] });
const evaluation = (fields: Record<string, unknown>) => ({ responses_create_params: { input: [] }, verdict_label: '[[A=B]]', ...fields });
const rollout = (...evaluations: unknown[]) => ({ reward: 1, judge_evaluations: evaluations });

describe('equivalence_llm_judge judgement_parsing_issue_rate', () => {
  it('counts a rollout once, with each kind once, over all its judge calls', () => {
    const metrics = judgementParsingMetrics(
      [
        [rollout(evaluation({ judgement_parsing_issues: ['repeated_verdict'] }), evaluation({ judgement_parsing_issues: ['conflicting_verdicts', 'repeated_verdict'] }))],
        [rollout(evaluation({ response: reply('[[A=B]]') })), rollout(evaluation({ judgement_parsing_issues: ['no_verdict'] }))],
        [rollout(evaluation({ judgement_parsing_issues: [] }))],
      ],
      labels,
    );
    expect(metrics).toEqual({
      judgement_parsing_issue_rate: 2 / 4,
      'judgement_parsing_issue_rate/conflicting_verdicts': 1 / 4,
      'judgement_parsing_issue_rate/no_verdict': 1 / 4,
      'judgement_parsing_issue_rate/repeated_verdict': 1 / 4,
    });
    expect(Object.keys(metrics)).toEqual([...Object.keys(metrics)].sort());
  });

  it('leaves out rollouts with no readable evaluation: judge errors, empty ones, no issues and no saved response', () => {
    const unjudged = [
      { reward: 0, judge_evaluations: [] },
      { reward: 0, judge_evaluations: null },
      { reward: 0, failure_reason: 'empty_final_answer' },
      rollout(evaluation({ verdict_label: 'JUDGE_ERROR', judgement_parsing_issues: ['no_verdict'], response: reply('?') })),
      rollout(null, {}, evaluation({ response: null })),
    ];
    expect(judgementParsingMetrics([unjudged], labels)).toEqual({});
    expect(judgementParsingMetrics([[...unjudged, rollout(evaluation({ judgement_parsing_issues: ['no_verdict'] }))]], labels)).toEqual({
      judgement_parsing_issue_rate: 1,
      'judgement_parsing_issue_rate/no_verdict': 1,
    });
  });

  it('reads the issues again from a saved judge response when the field is absent, with the given labels', () => {
    const recovered = (response: unknown, given = labels) => Object.keys(judgementParsingMetrics([[rollout(evaluation({ response }))]], given)).slice(1);
    expect(recovered(reply('[[A=B]] then [[A!=B]]'))).toEqual(['judgement_parsing_issue_rate/conflicting_verdicts']);
    expect(recovered(reply('thinking', 'incomplete'))).toEqual(['judgement_parsing_issue_rate/no_verdict', 'judgement_parsing_issue_rate/truncated_judge_output']);
    expect(recovered({ output: [{ type: 'function_call', name: 'f', arguments: '{}', call_id: 'c' }] })).toEqual(['judgement_parsing_issue_rate/unparseable_judge_output']);
    expect(recovered({ output: [] })).toEqual(['judgement_parsing_issue_rate/unparseable_judge_output']);
    expect(recovered({})).toEqual(['judgement_parsing_issue_rate/unparseable_judge_output']);
    expect(recovered(reply(null))).toEqual(['judgement_parsing_issue_rate/unparseable_judge_output']);
    // A content part without text reads as empty text: no label in it.
    expect(recovered({ output: [{ type: 'message', content: [{ type: 'refusal', refusal: 'no' }] }] })).toEqual(['judgement_parsing_issue_rate/no_verdict']);
    expect(recovered(reply('Grade: CORRECT'))).toEqual(['judgement_parsing_issue_rate/no_verdict']);
    expect(recovered(reply('Grade: CORRECT'), { equal: 'CORRECT', notEqual: 'INCORRECT' })).toEqual([]);
  });

  it('trusts a recorded list over the saved response', () => {
    const metrics = judgementParsingMetrics([[rollout(evaluation({ judgement_parsing_issues: [], response: reply('no label') }))]], labels);
    expect(metrics).toEqual({ judgement_parsing_issue_rate: 0 });
  });
});
