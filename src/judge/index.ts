export { configTemplate, rowTemplate } from './checked-template.ts';
export { DEFAULT_JUDGE_MAX_CONCURRENCY, type JudgeConfig, judgeConfigShape, JudgeError, type JudgeEvaluation, type JudgeMessage, LlmJudge } from './llm-judge.ts';
export { PromptTemplate, PromptTemplateError } from './prompt-template.ts';
export { type RecordedJudge, recordedJudge } from './recorded-judge.ts';
export { DEFAULT_VERDICT_LABELS, parseVerdict, type Verdict, type VerdictLabels, verdictText } from './verdict.ts';
export { AGGREGATION_MODES, type AggregationMode, aggregateScores, countPassed, evaluateEach } from './rubric-scoring.ts';
