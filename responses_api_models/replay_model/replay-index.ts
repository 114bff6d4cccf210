/**
 * Recorded rollouts indexed for replay. A request's input is the task's original input followed by the
 * conversation so far; the matching recording is the one whose original input is a prefix of it and
 * whose recorded model items agree with the conversation so far. The reply is the next recorded model
 * items, up to the next item the agent supplies: a tool output (the agent calls the real tools) or a user
 * message (a bash agent's observation of the command it ran). Content parts are compared by their fields
 * in any order, with OpenAI's defaults filled in (an input_image's `detail` is `auto` when absent).
 *
 * Several recordings can answer one request: repeats of a task, or tasks that differ only in fields the
 * model never sees (the expected answer). Those whose request `metadata` equals the one sent are preferred;
 * the rest is served in the recording's task order (`_ng_task_index`, then `_ng_rollout_index`, then file
 * order), one per rollout. Nothing in the request tells such tasks apart, so a collection that runs its rows
 * one at a time in task order is what gets each task its own recorded reply.
 *
 * In strict mode the tool outputs the agent sends must equal the recorded ones byte for byte; the first
 * divergence is reported with the recording's file and line. With `fallback: nearest`, a request no
 * recording agrees with (an environment that draws at random) is answered instead from one recording per
 * rollout, its model turns in order, so the rollout runs to its end.
 *
 * Replies recorded without their request (a judge's raw verdict, a user simulator's turns) come as keyed rows,
 * `{"keyed_replies": {"keys": [texts], "responses": [Response, ...]}}`: a request no recorded input matches is
 * answered from the keyed row whose keys it contains most of (by total length: the task's texts a judge prompt or a
 * simulator prompt quotes), its responses in recorded order, one per call.
 */
import { readFileSync } from 'node:fs';
import { NgymError, normalizeInput, type Response, type ResponseItem, SessionStore } from 'ngym';

export interface Recording {
  source: string;
  line: number;
  inputKey: string;
  inputLength: number;
  /** The request's metadata as recorded (a canonical JSON text; `{}` when none). */
  metadataKey: string;
  /** The rollout's place in its recorded run, for serving identical requests in order. */
  taskIndex: number;
  rolloutIndex: number;
  output: ResponseItem[];
  response: Response;
}

/** What to do with a request no recording agrees with: fail, or answer from the nearest recording (see above). */
type ReplayFallback = 'none' | 'nearest';

/** Replies recorded without their request, given in order to requests that contain the keys. */
interface KeyedReplies {
  source: string;
  line: number;
  keys: string[];
  /** Two texts the request must hold in this order (a judge asked twice with its two answers swapped). */
  order?: [string, string];
  responses: Response[];
  /** How many of `responses` were given. */
  given: number;
}

export interface ReplayOptions {
  strict: boolean;
  /** The request's instructions, searched for keyed rows' keys with its input. */
  instructions?: string | null;
  metadata?: unknown;
  fallback?: ReplayFallback;
}

/** JSON with object keys sorted, so that two values equal field for field have one text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, field]) => field !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** A content part by its text, or by all its fields with the type's defaults filled in (OpenAI's ResponseInputImage: detail `auto`). */
function partIdentity(part: Record<string, unknown>): string {
  if (typeof part.text === 'string') return part.text;
  if (typeof part.refusal === 'string') return part.refusal;
  const filled = part.type === 'input_image' && (part.detail === undefined || part.detail === null) ? { ...part, detail: 'auto' } : part;
  return canonicalJson(filled);
}

function metadataKey(metadata: unknown): string {
  return metadata === undefined || metadata === null ? '{}' : canonicalJson(metadata);
}

const indexOr = (value: unknown, fallback: number) => (Number.isInteger(value) ? (value as number) : fallback);

/** The parts of an item that identify it (defaults such as `type: "message"` and ids do not matter). */
function identity(item: ResponseItem, compareToolOutput: boolean): unknown {
  switch (item.type) {
    case 'function_call':
      return ['function_call', item.call_id, item.name, item.arguments];
    case 'function_call_output':
      return ['function_call_output', item.call_id, compareToolOutput ? item.output : null];
    case 'reasoning':
      return ['reasoning', item.summary.map((part) => part.text)];
    default: {
      const content =
        typeof item.content === 'string'
          ? item.content
          : item.content.map((part) => partIdentity(part as Record<string, unknown>)).join('');
      return ['message', item.role, content];
    }
  }
}

/** Items the agent adds to the conversation, not the model: tool outputs, and the observations a bash agent sends as user messages. */
function suppliedByAgent(item: ResponseItem): boolean {
  if (item.type === 'function_call_output') return true;
  if (item.type === 'function_call' || item.type === 'reasoning') return false;
  return item.role === 'user' || item.role === 'system' || item.role === 'developer';
}

function key(items: ResponseItem[]): string {
  return JSON.stringify(items.map((item) => identity(item, true)));
}

function describeItem(item: ResponseItem | undefined): string {
  if (item === undefined) return 'nothing';
  const text = JSON.stringify(identity(item, true));
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

type Candidate = { recording: Recording; position: number };

/** The text an item carries (message content, tool call arguments and output), for finding keyed rows' keys in a request. */
function itemText(item: ResponseItem): string {
  if (item.type === 'function_call') return `${item.name} ${item.arguments}`;
  if (item.type === 'function_call_output') return typeof item.output === 'string' ? item.output : JSON.stringify(item.output);
  if (item.type === 'reasoning') return item.summary.map((part) => part.text).join('\n');
  if (typeof item.content === 'string') return item.content;
  return item.content.map((part) => ((part as Record<string, unknown>).text as string | undefined) ?? '').join('\n');
}

function keyedRow(value: unknown, source: string, line: number): KeyedReplies {
  const row = value as { keys?: unknown; order?: unknown; responses?: unknown } | null;
  const keys = row?.keys;
  const order = row?.order;
  const responses = row?.responses;
  const texts = (list: unknown): list is string[] => Array.isArray(list) && list.every((key) => typeof key === 'string' && key !== '');
  if (!texts(keys) || keys.length === 0 || !Array.isArray(responses) || !responses.every((response) => Array.isArray((response as Response | null)?.output)) || (order !== undefined && !(texts(order) && order.length === 2))) {
    throw new NgymError('NGYM_INPUT_INVALID', `${source}:${line}: keyed_replies needs keys (non-empty texts), responses (each with an output list) and, if given, order (two texts).`);
  }
  return { source, line, keys, ...(order === undefined ? {} : { order: order as [string, string] }), responses: responses as Response[], given: 0 };
}

/** The recording's model turns: maximal runs of items the model produced, between the items the agent supplied. */
function modelTurns(output: readonly ResponseItem[]): { start: number; end: number }[] {
  const turns: { start: number; end: number }[] = [];
  for (let index = 0; index < output.length; index++) {
    if (suppliedByAgent(output[index] as ResponseItem)) continue;
    const start = index;
    while (index < output.length && !suppliedByAgent(output[index] as ResponseItem)) index++;
    turns.push({ start, end: index });
  }
  return turns;
}

/**
 * A recording's items from `start` to `end` as the model's reply; usage goes with the last model turn only (what
 * follows it is the agent's), so an agent that sums usage, or keeps the last turn's, gets the recorded total.
 */
function replyOf(recording: Recording, start: number, end: number): Response {
  const lastTurn = recording.output.slice(end).every(suppliedByAgent);
  return { ...recording.response, output: recording.output.slice(start, end), usage: lastTurn ? (recording.response.usage ?? null) : null };
}

export class ReplayIndex {
  private readonly byInput = new Map<string, Recording[]>();
  private readonly inputLengths = new Set<number>();
  private readonly ordered: Recording[];
  private readonly keyed: KeyedReplies[];
  private readonly sessionChoice = new SessionStore<Recording>();
  private readonly nextChoice = new Map<string, number>();
  /** Model calls answered per session (a rollout), to tell which model turn a fallback reply is. */
  private readonly sessionCalls = new SessionStore<number>();
  private nextFallback = 0;
  readonly size: number;

  constructor(recordings: Recording[], keyed: KeyedReplies[] = []) {
    this.keyed = keyed;
    this.ordered = [...recordings].sort((a, b) => a.taskIndex - b.taskIndex || a.rolloutIndex - b.rolloutIndex || a.source.localeCompare(b.source) || a.line - b.line);
    for (const recording of this.ordered) {
      const list = this.byInput.get(recording.inputKey) ?? [];
      list.push(recording);
      this.byInput.set(recording.inputKey, list);
      this.inputLengths.add(recording.inputLength);
    }
    this.size = recordings.length;
  }

  /** Keyed rows (replies recorded without their request). */
  get keyedSize(): number {
    return this.keyed.length;
  }

  static fromFiles(paths: readonly string[]): ReplayIndex {
    const recordings: Recording[] = [];
    const keyed: KeyedReplies[] = [];
    for (const path of paths) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        throw new NgymError('NGYM_INPUT_INVALID', `Cannot read rollouts file ${path}: ${(error as Error).message}`);
      }
      text.split('\n').forEach((line, index) => {
        if (line.trim() === '') return;
        let row: { responses_create_params?: { input?: unknown; metadata?: unknown }; response?: Response; _ng_task_index?: unknown; _ng_rollout_index?: unknown; keyed_replies?: unknown };
        try {
          row = JSON.parse(line);
        } catch (error) {
          throw new NgymError('NGYM_INPUT_INVALID', `${path}:${index + 1}: not valid JSON (${(error as Error).message}).`);
        }
        if (row.keyed_replies !== undefined) {
          keyed.push(keyedRow(row.keyed_replies, path, index + 1));
          return;
        }
        const input = row.responses_create_params?.input;
        if ((typeof input !== 'string' && !Array.isArray(input)) || !Array.isArray(row.response?.output)) {
          throw new NgymError('NGYM_INPUT_INVALID', `${path}:${index + 1}: a rollout needs responses_create_params.input and response.output.`);
        }
        const items = normalizeInput(input as string | ResponseItem[]);
        recordings.push({
          source: path,
          line: index + 1,
          inputKey: key(items),
          inputLength: items.length,
          metadataKey: metadataKey(row.responses_create_params?.metadata),
          // Rows without the collector's stamps keep file order, after stamped ones of the same request.
          taskIndex: indexOr(row._ng_task_index, Number.MAX_SAFE_INTEGER),
          rolloutIndex: indexOr(row._ng_rollout_index, Number.MAX_SAFE_INTEGER),
          output: row.response.output,
          response: row.response,
        });
      });
    }
    return new ReplayIndex(recordings, keyed);
  }

  /** The next recorded model items for this request, or an error naming why there are none. */
  reply(input: ResponseItem[], sessionId: string, options: ReplayOptions): Response {
    const calls = this.sessionCalls.get(sessionId) ?? 0;
    this.sessionCalls.set(sessionId, calls + 1);
    try {
      try {
        return this.recordedReply(input, sessionId, options);
      } catch (error) {
        if (this.keyed.length === 0 || !(error instanceof NgymError) || error.code !== 'NGYM_REPLAY_NO_MATCH') throw error;
        return this.keyedReply(input, options, error);
      }
    } catch (error) {
      if (options.fallback !== 'nearest' || !(error instanceof NgymError) || !['NGYM_REPLAY_NO_MATCH', 'NGYM_REPLAY_DIVERGENCE'].includes(error.code)) throw error;
      return this.fallbackReply(sessionId, calls);
    }
  }

  private recordedReply(input: ResponseItem[], sessionId: string, { strict, metadata }: ReplayOptions): Response {
    const candidates: Candidate[] = [];
    for (const length of this.inputLengths) {
      if (length > input.length) continue;
      for (const recording of this.byInput.get(key(input.slice(0, length))) ?? []) {
        candidates.push({ recording, position: input.length - length });
      }
    }
    if (candidates.length === 0) {
      const lastUser = [...input].reverse().find((item) => item.type !== 'function_call' && item.type !== 'function_call_output' && item.type !== 'reasoning' && item.role === 'user');
      throw new NgymError(
        'NGYM_REPLAY_NO_MATCH',
        `No recorded rollout starts with this input (last user message: ${describeItem(lastUser)}). The replay model holds ${this.size} recorded rollouts; is rollouts_jsonl_fpath the recording of this dataset?`,
        { status: 404 },
      );
    }

    const conversation = (candidate: Candidate) => input.slice(input.length - candidate.position);
    const firstMismatch = (candidate: Candidate, compareToolOutput: boolean): number => {
      const sent = conversation(candidate);
      for (let index = 0; index < sent.length; index++) {
        const recorded = candidate.recording.output[index];
        const given = sent[index] as ResponseItem;
        if (recorded === undefined || JSON.stringify(identity(recorded, compareToolOutput)) !== JSON.stringify(identity(given, compareToolOutput))) {
          return index;
        }
      }
      return -1;
    };

    const matching = candidates.filter((candidate) => firstMismatch(candidate, strict) === -1);
    if (matching.length === 0) {
      // Blame the recording that agrees longest with what was sent.
      const best = candidates
        .map((candidate) => ({ candidate, at: firstMismatch(candidate, strict) }))
        .sort((a, b) => b.at - a.at)[0] as { candidate: Candidate; at: number };
      const recorded = best.candidate.recording.output[best.at];
      const given = conversation(best.candidate)[best.at];
      const what = recorded?.type === 'function_call_output' && given?.type === 'function_call_output' ? 'tool output' : 'item';
      throw new NgymError(
        'NGYM_REPLAY_DIVERGENCE',
        `Replay diverged from the recording at ${best.candidate.recording.source}:${best.candidate.recording.line}, output item ${best.at}: the ${what} sent differs from the recorded one.\n  recorded: ${describeItem(recorded)}\n  received: ${describeItem(given)}`,
        { status: 409 },
      );
    }

    const sentMetadata = metadataKey(metadata);
    const sameMetadata = matching.filter((candidate) => candidate.recording.metadataKey === sentMetadata);
    const { recording, position } = this.choose(sameMetadata.length > 0 ? sameMetadata : matching, sessionId);
    const next = recording.output[position];
    if (next === undefined || suppliedByAgent(next)) {
      throw new NgymError(
        'NGYM_REPLAY_DIVERGENCE',
        `The recording at ${recording.source}:${recording.line} has no model output at item ${position} (${next === undefined ? 'the recording ended' : 'the agent supplies the item there'}).`,
        { status: 409 },
      );
    }
    let end = position;
    while (end < recording.output.length && !suppliedByAgent(recording.output[end] as ResponseItem)) end++;
    return replyOf(recording, position, end);
  }

  /**
   * A request no recorded input matches, answered from the keyed row whose keys its text contains most of (by total
   * length), the row's next reply; a tie goes to the first row in file order that has replies left.
   */
  private keyedReply(input: ResponseItem[], options: ReplayOptions, noMatch: NgymError): Response {
    const text = `${options.instructions ?? ''}\n${input.map(itemText).join('\n')}`;
    let best: { row: KeyedReplies; score: number }[] = [];
    for (const row of this.keyed) {
      const inOrder = row.order === undefined || (text.includes(row.order[0]) && text.indexOf(row.order[1], text.indexOf(row.order[0]) + row.order[0].length) >= 0);
      const score = inOrder ? row.keys.reduce((sum, key) => sum + (text.includes(key) ? key.length : 0), 0) : 0;
      if (score === 0 || (best[0] !== undefined && score < best[0].score)) continue;
      if (best[0] !== undefined && score > best[0].score) best = [];
      best.push({ row, score });
    }
    if (best.length === 0) {
      throw new NgymError('NGYM_REPLAY_NO_MATCH', `${noMatch.message} Nor does it quote the keys of any of the ${this.keyed.length} replies recorded without their request.`, { status: 404 });
    }
    const open = best.find(({ row }) => row.given < row.responses.length);
    if (open === undefined) {
      const row = (best[0] as { row: KeyedReplies }).row;
      throw new NgymError('NGYM_REPLAY_DIVERGENCE', `Replay diverged from the recording at ${row.source}:${row.line}: this request is call ${row.given + 1} for its task, and the recording holds ${row.responses.length} replies for it.`, { status: 409 });
    }
    open.row.given++;
    return open.row.responses[open.row.given - 1] as Response;
  }

  /**
   * The reply when no recording agrees (fallback `nearest`): the model turn numbered like this call of the rollout,
   * from the recording the rollout was answered from so far, else the next recording in task order; past its
   * last turn, its last turn again (the agent's max_steps ends the rollout).
   */
  private fallbackReply(sessionId: string, call: number): Response {
    const recording = this.sessionChoice.getOrCreate(sessionId, () => this.ordered[this.nextFallback++ % this.ordered.length] as Recording);
    const turns = modelTurns(recording.output);
    const turn = turns[Math.min(call, turns.length - 1)];
    if (turn === undefined) {
      throw new NgymError('NGYM_REPLAY_DIVERGENCE', `The recording at ${recording.source}:${recording.line} holds no model output to answer with.`, { status: 409 });
    }
    return replyOf(recording, turn.start, turn.end);
  }

  /** Identical requests spread over their recordings in task order; a rollout's session sticks to its choice. */
  private choose(matching: Candidate[], sessionId: string): Candidate {
    const stuck = this.sessionChoice.get(sessionId);
    const sticky = stuck === undefined ? undefined : matching.find((candidate) => candidate.recording === stuck);
    if (sticky !== undefined) return sticky;
    const first = (matching[0] as Candidate).recording;
    const group = `${first.inputKey}\n${first.metadataKey}`;
    const turn = this.nextChoice.get(group) ?? 0;
    this.nextChoice.set(group, turn + 1);
    const chosen = matching[turn % matching.length] as Candidate;
    this.sessionChoice.set(sessionId, chosen.recording);
    return chosen;
  }
}
