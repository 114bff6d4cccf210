/**
 * For the environment's tests and benchmark: a gym hosting the workplace_assistant server alone, and a
 * session that talks to it over HTTP as an agent does (seed_session, then tools with its cookie).
 */
import { type ConfigDict, CookieJar, sharedHttpClient } from 'ngym';
import { type InProcessGym, startInProcessGym } from 'ngym/testing';

const INSTANCE = 'workplace_assistant';

function workplaceConfig(databaseDirpath: string | null = null): ConfigDict {
  return {
    [INSTANCE]: { resources_servers: { workplace_assistant: { entrypoint: 'app.ts', domain: 'agent', database_dirpath: databaseDirpath } } },
  };
}

export function startWorkplaceGym(databaseDirpath: string | null = null): Promise<InProcessGym> {
  return startInProcessGym({ config: workplaceConfig(databaseDirpath) });
}

export interface ToolAnswer {
  status: number;
  /** The raw body: what the model would read. */
  text: string;
  output: unknown;
}

export class WorkplaceSession {
  private cookies = new CookieJar();

  constructor(private readonly gym: InProcessGym) {}

  private async post(path: string, body: unknown): Promise<{ status: number; text: string }> {
    const response = await sharedHttpClient().request(this.gym.url(INSTANCE, path), { body, cookies: this.cookies });
    this.cookies.merge(response.cookies);
    return { status: response.status, text: response.text };
  }

  async seed(): Promise<this> {
    const response = await this.post('/seed_session', { responses_create_params: { input: [] } });
    if (response.status !== 200) throw new Error(`seed_session failed (${response.status}): ${response.text}`);
    return this;
  }

  /** Calls a tool; `body` may be a pre-serialized JSON string. */
  async call(tool: string, body: unknown): Promise<ToolAnswer> {
    const response = await this.post(`/${tool}`, body);
    const parsed = response.status === 200 ? (JSON.parse(response.text) as { output: unknown }).output : undefined;
    return { status: response.status, text: response.text, output: parsed };
  }

  async verify(body: Record<string, unknown>): Promise<{ status: number; text: string; reward: number | undefined }> {
    const response = await this.post('/verify', body);
    const reward = response.status === 200 ? (JSON.parse(response.text) as { reward: number }).reward : undefined;
    return { ...response, reward };
  }
}

/** A verify body whose response holds these function calls (arguments as given, or JSON-encoded). */
export function verifyBody(calls: { name: string; arguments: unknown }[], groundTruth: unknown): Record<string, unknown> {
  return {
    responses_create_params: { input: [{ role: 'user', content: 'task' }] },
    ground_truth: groundTruth,
    response: {
      id: 'resp_1',
      object: 'response',
      created_at: 0,
      model: 'm',
      output: calls.map((call, index) => ({
        type: 'function_call',
        call_id: `call_${index}`,
        name: call.name,
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
      })),
      parallel_tool_calls: false,
      tool_choice: 'auto',
      tools: [],
    },
  };
}
