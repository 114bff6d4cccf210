/**
 * Recorded rollouts indexed for replay. A request's input is the task's original input followed by the
 * conversation so far; the matching recording is the one whose original input is a prefix of it and
 * whose recorded model items agree with the conversation so far. The reply is the next recorded model
 * items, up to the next item the agent supplies: a tool output (the agent calls the real tools) or a user
 * message (a bash agent's observation of the command it ran).
 *
 * In strict mode the tool outputs the agent sends must equal the recorded ones byte for byte; the first
 * divergence is reported with the recording's file and line.
 */
import { readFileSync } from 'node:fs';
import { NgymError, normalizeInput, type Response, type ResponseItem, SessionStore } from 'ngym';

export interface Recording {
  source: string;
  line: number;
  inputKey: string;
  inputLength: number;
  output: ResponseItem[];
  response: Response;
}

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
          : item.content.map((part) => (typeof part.text === 'string' ? part.text : typeof part.refusal === 'string' ? part.refusal : JSON.stringify(part))).join('');
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

export class ReplayIndex {
  private readonly byInput = new Map<string, Recording[]>();
  private readonly inputLengths = new Set<number>();
  private readonly sessionChoice = new SessionStore<Recording>();
  private readonly nextChoice = new Map<string, number>();
  readonly size: number;

  constructor(recordings: Recording[]) {
    for (const recording of recordings) {
      const list = this.byInput.get(recording.inputKey) ?? [];
      list.push(recording);
      this.byInput.set(recording.inputKey, list);
      this.inputLengths.add(recording.inputLength);
    }
    this.size = recordings.length;
  }

  static fromFiles(paths: readonly string[]): ReplayIndex {
    const recordings: Recording[] = [];
    for (const path of paths) {
      let text: string;
      try {
        text = readFileSync(path, 'utf8');
      } catch (error) {
        throw new NgymError('NGYM_INPUT_INVALID', `Cannot read rollouts file ${path}: ${(error as Error).message}`);
      }
      text.split('\n').forEach((line, index) => {
        if (line.trim() === '') return;
        let row: { responses_create_params?: { input?: unknown }; response?: Response };
        try {
          row = JSON.parse(line);
        } catch (error) {
          throw new NgymError('NGYM_INPUT_INVALID', `${path}:${index + 1}: not valid JSON (${(error as Error).message}).`);
        }
        const input = row.responses_create_params?.input;
        if ((typeof input !== 'string' && !Array.isArray(input)) || !Array.isArray(row.response?.output)) {
          throw new NgymError('NGYM_INPUT_INVALID', `${path}:${index + 1}: a rollout needs responses_create_params.input and response.output.`);
        }
        const items = normalizeInput(input as string | ResponseItem[]);
        recordings.push({ source: path, line: index + 1, inputKey: key(items), inputLength: items.length, output: row.response.output, response: row.response });
      });
    }
    return new ReplayIndex(recordings);
  }

  /** The next recorded model items for this request, or an error naming why there are none. */
  reply(input: ResponseItem[], sessionId: string, strict: boolean): Response {
    const candidates: { recording: Recording; position: number }[] = [];
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

    const conversation = (candidate: { recording: Recording; position: number }) => input.slice(input.length - candidate.position);
    const firstMismatch = (candidate: { recording: Recording; position: number }, compareToolOutput: boolean): number => {
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
        .sort((a, b) => b.at - a.at)[0] as { candidate: { recording: Recording; position: number }; at: number };
      const recorded = best.candidate.recording.output[best.at];
      const given = conversation(best.candidate)[best.at];
      const what = recorded?.type === 'function_call_output' && given?.type === 'function_call_output' ? 'tool output' : 'item';
      throw new NgymError(
        'NGYM_REPLAY_DIVERGENCE',
        `Replay diverged from the recording at ${best.candidate.recording.source}:${best.candidate.recording.line}, output item ${best.at}: the ${what} sent differs from the recorded one.\n  recorded: ${describeItem(recorded)}\n  received: ${describeItem(given)}`,
        { status: 409 },
      );
    }

    const chosen = this.choose(matching, sessionId);
    const { recording, position } = chosen;
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
    const isLast = end >= recording.output.length;
    return {
      ...recording.response,
      output: recording.output.slice(position, end),
      // Usage is reported once, on the final call, so an agent that sums usage gets the recorded total.
      usage: isLast ? (recording.response.usage ?? null) : null,
    };
  }

  /** Identical tasks (repeats) spread over their recordings; a rollout's session sticks to its choice. */
  private choose(matching: { recording: Recording; position: number }[], sessionId: string): { recording: Recording; position: number } {
    const stuck = this.sessionChoice.get(sessionId);
    const sticky = stuck === undefined ? undefined : matching.find((candidate) => candidate.recording === stuck);
    if (sticky !== undefined) return sticky;
    const first = matching[0] as { recording: Recording; position: number };
    const turn = this.nextChoice.get(first.recording.inputKey) ?? 0;
    this.nextChoice.set(first.recording.inputKey, turn + 1);
    const chosen = matching[turn % matching.length] as { recording: Recording; position: number };
    this.sessionChoice.set(sessionId, chosen.recording);
    return chosen;
  }
}
