/**
 * A server's output as lines, for `ngym run` to print with the server's name. A server that writes without ever
 * ending its line must not grow ngym run's memory: past `maxLineChars`, what it has written goes out as a line.
 */
export class OutputLines {
  private pending = '';

  constructor(private readonly maxLineChars = 64 * 1024) {}

  /** The lines `chunk` completes. */
  push(chunk: string): string[] {
    this.pending += chunk;
    const lines = this.pending.split('\n');
    this.pending = lines.pop() ?? '';
    while (this.pending.length >= this.maxLineChars) {
      lines.push(this.pending.slice(0, this.maxLineChars));
      this.pending = this.pending.slice(this.maxLineChars);
    }
    return lines;
  }
}
