/** Human output of the CLI (stdout); logs and child output go to stderr. */
import type { ServerInstanceInfo } from '../gym/head-server.ts';

function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function printInstancesTable(headUrl: string, instances: ServerInstanceInfo[]): void {
  const rows = instances.map((instance) => [instance.name, instance.server_type, instance.impl, instance.url, String(instance.pid ?? '')]);
  process.stdout.write(`Head server: ${headUrl}\n${formatTable(['instance', 'type', 'implementation', 'url', 'pid'], rows)}\n`);
}
