/** Every environment the parity harness knows, in the order `all` runs them. */
import type { ParityEnvironment } from '../environment.ts';
import { abstention, abstentionCustom } from './abstention.ts';
import { calendar } from './calendar.ts';
import { codeGen } from './code-gen.ts';
import { equivalenceRule, equivalenceRuleSeqMatch, equivalenceRuleWeightedSeqMatch } from './equivalence-rule.ts';
import { exampleSessionState } from './example-session-state.ts';
import { exampleMultiStep, exampleSingleToolCall } from './examples.ts';
import { formatVerification } from './format-verification.ts';
import { instructionFollowing } from './instruction-following.ts';
import { inverseIf, inverseIfModes } from './inverse-if.ts';
import { googleSearch } from './google-search.ts';
import { equivalenceLlmJudge, equivalenceLlmJudgeSwap, mathWithJudgeJudged } from './judged.ts';
import { mathAdvancedCalculations } from './math-advanced-calculations.ts';
import { mathWithCode } from './math-with-code.ts';
import { mathWithJudge } from './math-with-judge.ts';
import { mcqa, mcqaAnswerColonMd } from './mcqa.ts';
import { multichallenge, multichallengeModes } from './multichallenge.ts';
import { reasoningGym } from './reasoning-gym.ts';
import { singleStepToolUse, singleStepToolUseFractional, singleStepToolUseParallel, singleStepToolUseStrict } from './single-step-tool-use-with-argument-comparison.ts';
import { nvarc, nvarcInductive } from './nvarc.ts';
import { structuredOutputs } from './structured-outputs.ts';
import { terminusJudge, terminusJudgeFormatOnly, terminusJudgeJudgeOnly, terminusJudgeSimple, terminusJudgeStringOnly } from './terminus-judge.ts';
import { workplaceAssistant } from './workplace-assistant.ts';

export const ENVIRONMENTS: readonly ParityEnvironment[] = [mcqa, mcqaAnswerColonMd, mathWithJudge, structuredOutputs, exampleSingleToolCall, exampleMultiStep, calendar, workplaceAssistant, mathWithJudgeJudged, equivalenceLlmJudge, equivalenceLlmJudgeSwap, googleSearch, mathAdvancedCalculations, mathWithCode, codeGen, reasoningGym, exampleSessionState, instructionFollowing, formatVerification, singleStepToolUse, singleStepToolUseParallel, singleStepToolUseFractional, singleStepToolUseStrict, multichallenge, ...multichallengeModes, inverseIf, ...inverseIfModes, abstention, abstentionCustom, nvarc, nvarcInductive, terminusJudge, terminusJudgeSimple, terminusJudgeStringOnly, terminusJudgeJudgeOnly, terminusJudgeFormatOnly, equivalenceRule, equivalenceRuleSeqMatch, equivalenceRuleWeightedSeqMatch];
