/**
 * The boxes on an engine that ngym (or upstream's DockerProvider) made, found by their labels, and the reaping of
 * those a dead run left behind: what `ngym sandbox list|prune` shows and removes, and what a docker provider clears
 * before its first box.
 */
import { RUN_LABEL, runIsAlive } from '../run-identity.ts';
import type { ContainerSummary, EngineClient } from './engine-client.ts';

/** Labels on every box ngym makes: upstream's (so its tools see ours) and ngym's own. */
export const SANDBOX_LABELS = { 'nemo-gym.sandbox': '1', 'ngym.sandbox': '1' } as const;

export interface SandboxBoxInfo {
  name: string;
  id: string;
  image: string;
  /** The engine's state (`running`, `exited`, ...). */
  state: string;
  status: string;
  createdAt: Date;
  /** The gym run it belongs to; null for a box upstream's DockerProvider made (no ngym label). */
  runId: string | null;
  /** Whether that run may still be alive (true for boxes without a run: nothing tells). */
  runAlive: boolean;
  labels: Record<string, string>;
}

function boxInfo(summary: ContainerSummary): SandboxBoxInfo {
  const labels = summary.Labels ?? {};
  const runId = labels[RUN_LABEL] ?? null;
  return {
    name: (summary.Names[0] ?? summary.Id).replace(/^\//, ''),
    id: summary.Id,
    image: summary.Image,
    state: summary.State,
    status: summary.Status,
    createdAt: new Date(summary.Created * 1000),
    runId,
    runAlive: runId === null || runIsAlive(runId),
    labels,
  };
}

/** Every box labelled `nemo-gym.sandbox=1` or `ngym.sandbox=1`, running or not. */
export async function listSandboxBoxes(engine: EngineClient): Promise<SandboxBoxInfo[]> {
  const [upstream, ours] = await Promise.all(Object.keys(SANDBOX_LABELS).map((label) => engine.listContainers([`${label}=1`])));
  const byId = new Map<string, ContainerSummary>();
  for (const summary of [...(upstream ?? []), ...(ours ?? [])]) byId.set(summary.Id, summary);
  return [...byId.values()].map(boxInfo).sort((left, right) => left.createdAt.getTime() - right.createdAt.getTime());
}

/** Removes the boxes whose gym run is no longer alive; resolves to the removed ones. */
export async function reapDeadRunBoxes(engine: EngineClient): Promise<SandboxBoxInfo[]> {
  const dead = (await engine.listContainers([RUN_LABEL])).map(boxInfo).filter((box) => !box.runAlive);
  await Promise.all(dead.map((box) => engine.removeContainer(box.id).catch(() => false)));
  return dead;
}
