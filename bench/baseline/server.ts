/**
 * The baseline: the same hops as ngym's collect -> simple_agent -> model/resources, written by hand with
 * node:http and keep-alive agents, no framework, no validation, no sessions. Usage:
 *   node --import tsx bench/baseline/server.ts '{"role": "model" | "resources" | "agent", ...}'
 * Prints `{"port": N}` once listening.
 */
import { Agent, createServer, request } from 'node:http';
import { nullModelOutput } from '../lib/null-model.ts';

interface Options {
  role: 'model' | 'resources' | 'agent';
  modelUrl?: string;
  resourcesUrl?: string;
  latencyMs?: number;
  payloadTokens?: number;
  /** False: answer with the final message at once (one model call per rollout). */
  callTool?: boolean;
}

const options = JSON.parse(process.argv[2] ?? '{}') as Options;
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function post(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const call = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    call.on('error', reject);
    call.end(body);
  });
}

async function handle(path: string, body: string): Promise<string> {
  if (options.role === 'model') {
    if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
    const params = JSON.parse(body) as { input: { type?: string }[]; tools?: { name?: string }[] };
    const output = nullModelOutput(params.input, options.payloadTokens ?? 0, options.callTool ?? true, params.tools);
    return JSON.stringify({ id: 'resp_bench', object: 'response', created_at: 0, model: 'null', output, parallel_tool_calls: true, tool_choice: 'auto', tools: [] });
  }
  if (options.role === 'resources') {
    if (path === '/seed_session') return '{}';
    if (path === '/ping') return '{"ok": true}';
    return JSON.stringify({ ...(JSON.parse(body) as object), reward: 1.0 });
  }
  // The agent: seed, then model and tools until a message, then verify.
  const row = JSON.parse(body) as { responses_create_params: { input: unknown[] } };
  const resources = options.resourcesUrl as string;
  await post(`${resources}/seed_session`, body);
  const outputs: { type: string; call_id?: string; name?: string }[] = [];
  let last: { output: typeof outputs } & Record<string, unknown>;
  for (;;) {
    last = JSON.parse(await post(`${options.modelUrl}/v1/responses`, JSON.stringify({ ...row.responses_create_params, input: [...row.responses_create_params.input, ...outputs] })));
    outputs.push(...last.output);
    const calls = last.output.filter((item) => item.type === 'function_call');
    if (calls.length === 0) break;
    for (const call of calls) outputs.push({ type: 'function_call_output', call_id: call.call_id, output: await post(`${resources}/${call.name}`, '{}') } as never);
  }
  return post(`${resources}/verify`, JSON.stringify({ ...row, response: { ...last, output: outputs } }));
}

const server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    handle(incoming.url ?? '/', Buffer.concat(chunks).toString('utf8')).then(
      (text) => {
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(text);
      },
      (error: Error) => {
        outgoing.writeHead(500, { 'content-type': 'application/json' });
        outgoing.end(JSON.stringify(error.message));
      },
    );
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', 65_535, () => console.log(JSON.stringify({ port: (server.address() as { port: number }).port })));
