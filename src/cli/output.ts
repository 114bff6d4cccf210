/** Human output of the CLI (stdout); logs and child output go to stderr. */
import type { ServerInstanceInfo } from '../gym/head-server.ts';

export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export function printInstancesTable(headUrl: string, instances: ServerInstanceInfo[]): void {
  // Which code runs: ngym's TypeScript, or a Python server (upstream's) and where it is.
  const runs = (instance: ServerInstanceInfo) => (instance.entrypoint.endsWith('.py') ? `Python ${instance.dir_path}` : 'TypeScript');
  const rows = instances.map((instance) => [instance.name, instance.server_type, instance.impl, instance.url, String(instance.pid ?? ''), runs(instance)]);
  process.stdout.write(`Head server: ${headUrl}\n${formatTable(['instance', 'type', 'implementation', 'url', 'pid', 'runs'], rows)}\n`);
}
