/**
 * Training mode: the exact prompt and generated token ids of one call, with the generated tokens'
 * log-probabilities (spec training-integration A1.5). Sources, first complete one wins, later present
 * ones must agree (upstream HEAD):
 *   1. a bundle on `choices[0].message` (NeMo RL's server attaches it);
 *   2. vLLM's `return_token_ids`: top-level `prompt_token_ids` plus `choices[0].token_ids`, checked
 *      against the logprob tokens;
 *   3. the logprob tokens, with the prompt from `/tokenize` on the same engine.
 * Logprob tokens may be `token_id:N` (vLLM with `return_tokens_as_token_ids`) or a bare `N` (TRL 0.28's
 * `vllm-serve`). Anything partial or inconsistent fails the call rather than training on wrong ids.
 */
import { type ChatCompletion, NgymError } from 'ngym';

interface TokenInformation {
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
  routed_experts?: unknown;
}

type Choice = ChatCompletion['choices'][number];
type Fields = Record<string, unknown>;

const REQUIRED = ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs'] as const;
const TOKEN_PATTERN = /^(?:token_id:)?(\d+)$/;

function inconsistent(message: string): NgymError {
  return new NgymError('NGYM_UPSTREAM_BODY', message);
}

function idList(value: unknown, name: string): number[] {
  if (!Array.isArray(value) || !value.every((id) => Number.isInteger(id) && id >= 0)) {
    throw inconsistent(`\`${name}\` must be a list of integer token ids.`);
  }
  return value;
}

function sameIds(left: number[], right: number[]): boolean {
  return left.length === right.length && left.every((id, index) => id === right[index]);
}

function validated(bundle: Fields, source: string): TokenInformation {
  const missing = REQUIRED.filter((field) => bundle[field] === undefined || bundle[field] === null);
  if (missing.length > 0) throw inconsistent(`${source} returned partial token metadata; missing: ${missing.join(', ')}.`);
  const information: TokenInformation = {
    prompt_token_ids: idList(bundle.prompt_token_ids, `${source}.prompt_token_ids`),
    generation_token_ids: idList(bundle.generation_token_ids, `${source}.generation_token_ids`),
    generation_log_probs: bundle.generation_log_probs as number[],
  };
  if (!Array.isArray(information.generation_log_probs) || !information.generation_log_probs.every((value) => typeof value === 'number')) {
    throw inconsistent(`\`${source}.generation_log_probs\` must be a list of numbers.`);
  }
  if (information.generation_token_ids.length !== information.generation_log_probs.length) {
    throw inconsistent(
      `${source} returned mismatched generation token ids and log probabilities: ${information.generation_token_ids.length} token ids and ${information.generation_log_probs.length} log probabilities.`,
    );
  }
  if (bundle.routed_experts !== undefined && bundle.routed_experts !== null) information.routed_experts = bundle.routed_experts;
  return information;
}

function messageBundle(message: Fields): TokenInformation | undefined {
  if (!REQUIRED.some((field) => message[field] !== undefined && message[field] !== null)) return undefined;
  return validated(message, 'choice.message');
}

function inlineIds(completion: Fields, choice: Fields): { prompt: number[]; generation: number[] } | undefined {
  const prompt = completion.prompt_token_ids;
  const generation = choice.token_ids;
  const hasPrompt = prompt !== undefined && prompt !== null;
  const hasGeneration = generation !== undefined && generation !== null;
  if (hasPrompt !== hasGeneration) {
    throw inconsistent(`The vLLM response returned partial token metadata; missing: ${hasPrompt ? 'choice.token_ids' : 'prompt_token_ids'}.`);
  }
  return hasPrompt ? { prompt: idList(prompt, 'prompt_token_ids'), generation: idList(generation, 'choice.token_ids') } : undefined;
}

function logprobTokens(choice: Fields): { ids: number[]; logprobs: number[] } {
  const block = choice.logprobs as { content?: unknown } | null | undefined;
  if (!block || !Array.isArray(block.content)) {
    throw inconsistent(
      `Training mode requested per-token logprobs (logprobs: true, top_logprobs: 0, return_tokens_as_token_ids: true) but the backend returned none (choice.logprobs=${JSON.stringify(block ?? null)}). Cannot extract token ids.`,
    );
  }
  const ids: number[] = [];
  const logprobs: number[] = [];
  block.content.forEach((entry: { token?: unknown; logprob?: unknown } | null, index: number) => {
    const match = typeof entry?.token === 'string' ? TOKEN_PATTERN.exec(entry.token) : null;
    if (match === null) {
      throw inconsistent(
        `choice.logprobs.content[${index}].token is ${JSON.stringify(entry?.token)}; expected a token id as \`token_id:<int>\` or \`<int>\` (is return_tokens_as_token_ids honoured by the backend?).`,
      );
    }
    if (typeof entry?.logprob !== 'number') throw inconsistent(`choice.logprobs.content[${index}].logprob must be a number.`);
    ids.push(Number(match[1]));
    logprobs.push(entry.logprob);
  });
  return { ids, logprobs };
}

/** An empty reply without logprobs is how TRL's server reports a context overflow: no tokens to train on. */
function isEmptyReply(choice: Choice): boolean {
  const message = choice.message;
  return !message.content && (message.tool_calls ?? []).length === 0 && (choice.logprobs === null || choice.logprobs === undefined);
}

/**
 * Puts the call's token information on `choices[0].message` and removes the transport fields
 * (`logprobs`, top-level `prompt_token_ids`, `choices[0].token_ids`). Mutates `completion`.
 */
export async function attachTokenInformation(completion: ChatCompletion, tokenize: () => Promise<unknown>): Promise<void> {
  const choice = completion.choices[0] as Choice;
  const message = choice.message as Fields;
  const inline = inlineIds(completion, choice);
  let information = messageBundle(message);
  if (information !== undefined) {
    if (inline !== undefined && (!sameIds(inline.prompt, information.prompt_token_ids) || !sameIds(inline.generation, information.generation_token_ids))) {
      throw inconsistent('Message-level token metadata disagrees with the vLLM response token ids.');
    }
  } else if (inline === undefined && isEmptyReply(choice)) {
    information = undefined;
  } else {
    const generated = logprobTokens(choice);
    let prompt: number[];
    if (inline !== undefined) {
      if (!sameIds(inline.generation, generated.ids)) throw inconsistent('vLLM response generation token ids disagree with the choice logprob token ids.');
      prompt = inline.prompt;
    } else {
      prompt = idList((await tokenize() as { tokens?: unknown } | null)?.tokens, 'tokenize.tokens');
    }
    information = validated(
      { prompt_token_ids: prompt, generation_token_ids: generated.ids, generation_log_probs: generated.logprobs, routed_experts: message.routed_experts },
      'vLLM token transport',
    );
  }
  if (information !== undefined) Object.assign(message, information);
  delete (choice as Fields).logprobs;
  delete (choice as Fields).token_ids;
  delete (completion as Fields).prompt_token_ids;
}
