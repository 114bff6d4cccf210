/**
 * What the RL trainers do with ngym's answers, re-implemented from their documented behaviour (spec
 * training-integration B1, B2) so tests can check that ngym's results train: TRL 0.28's discovery and
 * `rollout_func` post-processing, NeMo RL's `/run` result processing. Test code only; no trainer runs here.
 */
import { parse as parseYaml } from 'yaml';

type Json = Record<string, any>;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '0.0.0.0', 'localhost']);

/**
 * TRL (B1.2): `GET /global_config_dict_yaml` answers a JSON string holding YAML; every top-level entry
 * with `responses_api_agents` and a host and port becomes `{name: url}`, loopback hosts rewritten to the
 * head server's host.
 */
export function trlDiscoverAgents(globalConfigBody: string, headServerHost: string): Record<string, string> {
  const yamlText: unknown = JSON.parse(globalConfigBody);
  if (typeof yamlText !== 'string') throw new Error('The head server must answer a JSON string holding YAML.');
  const config = parseYaml(yamlText) as Json;
  const agents: Record<string, string> = {};
  for (const [name, entry] of Object.entries(config)) {
    for (const agent of Object.values((entry as Json | null)?.responses_api_agents ?? {}) as Json[]) {
      if (agent?.host === undefined || agent?.port === undefined) continue;
      const host = LOOPBACK_HOSTS.has(String(agent.host)) ? headServerHost : String(agent.host);
      agents[name] = `http://${host}:${agent.port}`;
    }
  }
  if (Object.keys(agents).length === 0) throw new Error('No agents found in the global config.');
  return agents;
}

export interface TrlRollout {
  promptIds: number[];
  completionIds: number[];
  /** 1 for generated tokens (trained on), 0 for tool/user tokens between calls. */
  envMask: number[];
  logprobs: number[];
  reward: number;
  numTurns: number;
  failed: boolean;
}

function hasContent(output: Json[]): boolean {
  return output.some(
    (item) =>
      item.type === 'function_call' ||
      (item.type === 'message' &&
        Array.isArray(item.content) &&
        item.content.some((part: Json) => part.type === 'output_text' && typeof part.text === 'string' && part.text.trim() !== '')),
  );
}

/** TRL 0.28 `rollout_func` (B1.4, B1.5) on one `/run` reply body; throws as TRL raises. */
export function trlProcessRollout(result: unknown, eosTokenId: number): TrlRollout {
  const failed: TrlRollout = { promptIds: [eosTokenId], completionIds: [eosTokenId], envMask: [0], logprobs: [0], reward: 0, numTurns: 0, failed: true };
  if (result === null || typeof result !== 'object' || Array.isArray(result) || (result as Json).error) return failed;
  const output: Json[] = (result as Json).response?.output ?? [];
  if (!hasContent(output)) return failed;

  const turns = output.filter((item) => item.prompt_token_ids && item.generation_token_ids);
  if (turns.length === 0) throw new Error('Rollout has no valid turns');
  const rollout: TrlRollout = { promptIds: [], completionIds: [], envMask: [], logprobs: [], reward: Number((result as Json).reward ?? 0), numTurns: turns.length, failed: false };
  let seen: number[] = [];
  turns.forEach((item, index) => {
    const prompt: number[] = item.prompt_token_ids;
    const generation: number[] = item.generation_token_ids;
    const logprobs: number[] = item.generation_log_probs ?? [];
    if (logprobs.length !== generation.length) throw new Error(`Turn ${index}: ${generation.length} generation tokens but ${logprobs.length} logprobs`);
    if (index === 0) {
      rollout.promptIds = [...prompt];
    } else if (prompt.length > seen.length) {
      // TRL only checks when the new prompt is longer than what it has seen.
      if (prompt.slice(0, seen.length).some((id, position) => id !== seen[position])) throw new Error('Non-contiguous messages');
      const environment = prompt.slice(seen.length);
      rollout.completionIds.push(...environment);
      rollout.envMask.push(...environment.map(() => 0));
      rollout.logprobs.push(...environment.map(() => 0));
    }
    rollout.completionIds.push(...generation);
    rollout.envMask.push(...generation.map(() => 1));
    rollout.logprobs.push(...logprobs);
    seen = [...prompt, ...generation];
  });
  return rollout;
}

interface NemoRlMessage {
  role: 'user' | 'assistant';
  tokenIds: number[];
  generationLogprobs?: number[];
}

export interface NemoRlResult {
  messageLog: NemoRlMessage[];
  /** The initial prompt: what GRPO groups generations of one task by. */
  inputMessageLog: NemoRlMessage[];
  totalReward: number;
  /** Top-level numeric and boolean fields, averaged per agent by NeMo RL. */
  metrics: Record<string, number>;
}

/** NeMo RL's processing of one `/run` result (B2.4), HEAD strictness: a rollout without turns is an error. */
export function nemoRlProcessResult(result: Json): NemoRlResult {
  const messageLog: NemoRlMessage[] = [];
  let seen: number[] = [];
  for (const item of result.response?.output ?? []) {
    if (!Array.isArray(item.generation_token_ids) || item.generation_token_ids.length === 0) continue;
    const prompt: number[] = item.prompt_token_ids;
    if (!Array.isArray(prompt) || prompt.length < seen.length || seen.some((id, position) => id !== prompt[position])) {
      throw new Error(`Non-contiguous prompt_token_ids at turn ${messageLog.length / 2}: the prompt does not extend the previous prompt and generation.`);
    }
    if (!Array.isArray(item.generation_log_probs) || item.generation_log_probs.length !== item.generation_token_ids.length) {
      throw new Error('generation_log_probs and generation_token_ids differ in length');
    }
    messageLog.push({ role: 'user', tokenIds: prompt.slice(seen.length) });
    messageLog.push({ role: 'assistant', tokenIds: item.generation_token_ids, generationLogprobs: item.generation_log_probs });
    seen = [...prompt, ...item.generation_token_ids];
  }
  if (messageLog.length === 0) throw new Error('NeMo Gym result has no turns with generation_token_ids');
  const components = result.reward_components;
  if (components !== undefined) {
    const sum = Object.values(components as Record<string, number>).reduce((total, value) => total + value, 0);
    if (Math.abs(sum - result.reward) > 1e-6) throw new Error(`reward_components sum to ${sum}, not reward ${result.reward}`);
  }
  const metrics: Record<string, number> = {};
  for (const [key, value] of Object.entries(result)) {
    if (typeof value === 'number' || typeof value === 'boolean') metrics[key] = Number(value);
  }
  return { messageLog, inputMessageLog: messageLog.slice(0, 1), totalReward: Number(result.reward), metrics };
}
