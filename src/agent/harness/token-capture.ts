/**
 * Token capture for harness agents: every model call a CLI makes during one rollout, with the prompt and
 * completion token ids and logprobs the model server returned (vllm_model), and their delivery in the rollout
 * the way upstream NeMo Gym 0.7.0 delivers them (`nemo_gym/token_id_capture`):
 *
 * - each call's parent is decided when it is recorded: a call whose prompt starts with an earlier call's
 *   prompt + generation continues that call (`resolved`); a call whose request holds no assistant turn starts a
 *   conversation of its own (`root`: the task, or a side call such as a session title); any other call (the
 *   harness rewrote its history or compacted its context) is `unresolved` and begins a new fragment, never
 *   spliced onto the trajectory;
 * - a CLI sends its history back without token ids (no dialect carries them): each earlier assistant turn it
 *   sends is matched to the captured call that produced it (by its tool call ids, else its text) and gets
 *   that call's token ids back, so the model server splices the sampled ids into the prompt instead of
 *   re-tokenizing them (upstream's lineage); a turn the harness rewrote matches nothing and stays as sent;
 * - the rollout's `response.output` is rebuilt from the main chain (the longest: the task's conversation): each
 *   call's output items, the item that carries the generation with `prompt_token_ids`, `generation_token_ids`
 *   and `generation_log_probs`;
 * - `_ng_token_capture` holds the build's metrics, and `mask_sample: true` marks a rollout a trainer must not
 *   train on (nothing recorded, a call without token ids, a failed call), with the reason in `error`.
 */
import type { Response } from '../../protocol/responses.ts';

/** Keys of the rollout record, as upstream's. */
export const TOKEN_CAPTURE_KEY = '_ng_token_capture';
export const MASK_SAMPLE_KEY = 'mask_sample';

type ParentResolution = 'root' | 'resolved' | 'unresolved';

export interface CapturedCall {
  model_call_id: string;
  /** Which endpoint the harness called: `/v1/messages`, `/v1/responses` or `/v1/chat/completions`. */
  dialect: string;
  prompt_token_ids: number[];
  generation_token_ids: number[];
  generation_log_probs: number[];
  /** The model's output items of this call (token fields included on the item that carried them). */
  output_items: Record<string, unknown>[];
  parent_resolution: ParentResolution;
  parent_call_id: string | null;
}

export interface FailedCall {
  dialect: string;
  status: number;
  message: string;
}

export interface TokenCaptureMetrics {
  n_calls: number;
  failed_calls: number;
  chains: number;
  roots: number;
  unresolved_parent_calls: number;
  calls_without_token_ids: number;
  generated_tokens_captured: number;
  generated_tokens_delivered: number;
  delivered_fraction: number;
  error?: string;
}

export interface TokenDelivery {
  /** The rebuilt `response.output`, or null when the rollout is masked. */
  output: Record<string, unknown>[] | null;
  metrics: TokenCaptureMetrics;
  maskSample: boolean;
}

type Item = Record<string, unknown>;

function isIdList(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === 'number');
}

function assistantText(item: Item): string {
  if (item.type === 'function_call' || item.type === 'reasoning') return '';
  const content = item.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (typeof part === 'object' && part !== null && typeof (part as Item).text === 'string' ? ((part as Item).text as string) : '')).join('');
}

function startsWith(sequence: readonly number[], prefix: readonly number[]): boolean {
  if (prefix.length > sequence.length) return false;
  for (let index = 0; index < prefix.length; index++) if (sequence[index] !== prefix[index]) return false;
  return true;
}

/** The calls of one rollout, in the order the harness made them. */
export class RolloutTokenCapture {
  readonly calls: CapturedCall[] = [];
  readonly failures: FailedCall[] = [];
  /** Calls answered without token ids (a model server that does not return them). */
  callsWithoutTokenIds = 0;

  constructor(readonly rolloutId: string) {}

  /** Records one answered call from the model server's Responses answer; `assistantTurns`: how many its request held. */
  record(response: Response, dialect: string, assistantTurns: number): void {
    const items = structuredClone(response.output) as Item[];
    const carrier = items.find((item) => isIdList(item.generation_token_ids) && isIdList(item.prompt_token_ids));
    if (carrier === undefined) {
      this.callsWithoutTokenIds++;
      return;
    }
    const prompt = carrier.prompt_token_ids as number[];
    const generation = carrier.generation_token_ids as number[];
    const logProbs = isIdList(carrier.generation_log_probs) ? carrier.generation_log_probs : [];
    // vllm_model puts the same ids on every item of one call; keep them on the first only.
    for (const item of items) if (item !== carrier) for (const key of ['prompt_token_ids', 'generation_token_ids', 'generation_log_probs'] as const) delete item[key];
    const parent = this.parentOf(prompt);
    this.calls.push({
      model_call_id: response.id,
      dialect,
      prompt_token_ids: prompt,
      generation_token_ids: generation,
      generation_log_probs: logProbs,
      output_items: items,
      parent_resolution: parent !== null ? 'resolved' : assistantTurns === 0 ? 'root' : 'unresolved',
      parent_call_id: parent?.model_call_id ?? null,
    });
  }

  /**
   * Puts the captured token ids back on the assistant turns of a request's input (items in Responses form,
   * changed in place). Returns how many assistant turns the input holds, and how many were matched.
   */
  restoreTokenIds(input: Item[]): { turns: number; matched: number } {
    let turns = 0;
    let matched = 0;
    let group: Item[] = [];
    const flush = () => {
      if (group.length > 0) turns++;
      const call = group.length === 0 ? undefined : this.producerOf(group);
      if (call !== undefined) {
        const carrier = group.at(-1) as Item;
        carrier.prompt_token_ids = call.prompt_token_ids;
        carrier.generation_token_ids = call.generation_token_ids;
        carrier.generation_log_probs = call.generation_log_probs;
        matched++;
      }
      group = [];
    };
    for (const item of input) {
      const assistant = item.type === 'function_call' || item.type === 'reasoning' || (item.role === 'assistant' && (item.type === 'message' || item.type === undefined));
      if (assistant) group.push(item);
      else flush();
    }
    flush();
    return { turns, matched };
  }

  /** The captured call whose output is this assistant turn: same tool call ids, or (without calls) the same text. */
  private producerOf(group: Item[]): CapturedCall | undefined {
    const callIds = group.filter((item) => item.type === 'function_call').map((item) => item.call_id);
    const text = group.map(assistantText).join('').trim();
    return this.calls.find((call) => {
      const produced = call.output_items.filter((item) => item.type === 'function_call').map((item) => item.call_id);
      if (callIds.length > 0 || produced.length > 0) return callIds.length === produced.length && callIds.every((id, index) => id === produced[index]);
      return text !== '' && call.output_items.map(assistantText).join('').trim() === text;
    });
  }

  recordFailure(failure: FailedCall): void {
    this.failures.push(failure);
  }

  /** The latest earlier call whose prompt + generation this prompt extends. */
  private parentOf(prompt: number[]): CapturedCall | null {
    for (let index = this.calls.length - 1; index >= 0; index--) {
      const call = this.calls[index] as CapturedCall;
      if (startsWith(prompt, call.prompt_token_ids) && startsWith(prompt.slice(call.prompt_token_ids.length), call.generation_token_ids)) return call;
    }
    return null;
  }

  /**
   * The main chain: the longest run of resolved calls (the task's conversation; side calls such as a title are
   * short), from its root or fragment start to its last call; the later one on a tie.
   */
  private mainChain(): CapturedCall[] {
    const byId = new Map(this.calls.map((call) => [call.model_call_id, call]));
    const chainTo = (last: CapturedCall): CapturedCall[] => {
      const chain: CapturedCall[] = [];
      for (let call: CapturedCall | undefined = last; call !== undefined; call = call.parent_call_id === null ? undefined : byId.get(call.parent_call_id)) chain.unshift(call);
      return chain;
    };
    let best: CapturedCall[] = [];
    for (const call of this.calls) {
      const chain = chainTo(call);
      if (chain.length >= best.length) best = chain;
    }
    return best;
  }

  deliver(): TokenDelivery {
    const captured = this.calls.reduce((sum, call) => sum + call.generation_token_ids.length, 0);
    const metrics: TokenCaptureMetrics = {
      n_calls: this.calls.length + this.callsWithoutTokenIds + this.failures.length,
      failed_calls: this.failures.length,
      chains: this.calls.filter((call) => call.parent_resolution !== 'resolved').length,
      roots: this.calls.filter((call) => call.parent_resolution === 'root').length,
      unresolved_parent_calls: this.calls.filter((call) => call.parent_resolution === 'unresolved').length,
      calls_without_token_ids: this.callsWithoutTokenIds,
      generated_tokens_captured: captured,
      generated_tokens_delivered: 0,
      delivered_fraction: 0,
    };
    const masked = (error: string): TokenDelivery => ({ output: null, metrics: { ...metrics, error }, maskSample: true });
    if (this.failures.length > 0) return masked(`${this.failures.length} model call(s) failed`);
    if (this.callsWithoutTokenIds > 0) return masked(`${this.callsWithoutTokenIds} model call(s) returned no token ids`);
    if (this.calls.length === 0) return masked('nothing recorded');

    const chain = this.mainChain();
    const output: Item[] = [];
    for (const call of chain) {
      for (const item of call.output_items) {
        if (item.generation_token_ids !== undefined) {
          // The chain's prompts are contiguous: each call's prompt extends the previous prompt + generation.
          item.prompt_token_ids = call.prompt_token_ids;
          item.generation_token_ids = call.generation_token_ids;
          item.generation_log_probs = call.generation_log_probs;
        }
        output.push(item);
      }
    }
    const delivered = chain.reduce((sum, call) => sum + call.generation_token_ids.length, 0);
    metrics.generated_tokens_delivered = delivered;
    metrics.delivered_fraction = captured === 0 ? 0 : Math.round((delivered / captured) * 10_000) / 10_000;
    return { output, metrics, maskSample: false };
  }
}

/** Writes a delivery into a rollout record (the verify response): upstream's `response.output`, `_ng_token_capture`, `mask_sample`. */
export function applyTokenDelivery(rollout: Record<string, unknown>, delivery: TokenDelivery): Record<string, unknown> {
  const result: Record<string, unknown> = { ...rollout, [TOKEN_CAPTURE_KEY]: delivery.metrics };
  if (delivery.maskSample) result[MASK_SAMPLE_KEY] = true;
  if (delivery.output !== null && typeof rollout.response === 'object' && rollout.response !== null) {
    result.response = { ...(rollout.response as Item), output: delivery.output };
  }
  return result;
}
