import type { InProcessGym } from '../gym/in-process.ts';

/** POSTs `body` to `path` of a server of the gym; its JSON answer, or an error with the status and body unless it is 200. */
export async function callServer(gym: InProcessGym, server: string, path: string, body: unknown): Promise<Record<string, any>> {
  const response = await gym.client.post(server, path, body);
  if (response.status !== 200) throw new Error(`${server} ${path} answered HTTP ${response.status}: ${response.text}`);
  return response.json<Record<string, any>>();
}
