/**
 * Writes results in launch order, which is (task, rollout) order for an input in task order: a result
 * waits until everything launched before it is resolved. Admission pauses while too many wait, so a slow
 * early rollout cannot make the held-back results grow without bound.
 */
import type { JsonlAppender } from './output-files.ts';

export class OrderedWriter {
  private readonly launched: number[] = [];
  private head = 0;
  private readonly resolved = new Map<number, string | undefined>();
  private readonly roomWaiters: (() => void)[] = [];
  private lastLaunched = -1;
  outOfOrder = false;

  constructor(
    private readonly appender: JsonlAppender,
    private readonly maxWaiting: number,
  ) {}

  launch(key: number): void {
    if (key < this.lastLaunched) this.outOfOrder = true;
    this.lastLaunched = key;
    this.launched.push(key);
  }

  resolve(key: number, line: string | undefined): void {
    this.resolved.set(key, line);
    while (this.head < this.launched.length && this.resolved.has(this.launched[this.head] as number)) {
      const next = this.launched[this.head] as number;
      const text = this.resolved.get(next);
      this.resolved.delete(next);
      if (text !== undefined) this.appender.append(text);
      this.head++;
    }
    if (this.head > 4096) {
      this.launched.splice(0, this.head);
      this.head = 0;
    }
    if (this.resolved.size < this.maxWaiting) for (const waiter of this.roomWaiters.splice(0)) waiter();
  }

  async waitForRoom(stopping: () => boolean): Promise<void> {
    while (this.resolved.size >= this.maxWaiting && !stopping()) await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }
}
