/** Every `ngym` subcommand, in the order `ngym --help` lists them. Add new commands here. */
import type { CliCommand } from '../command.ts';
import { clientCommand } from './client.ts';
import { collectCommand } from './collect.ts';
import { demoCommand } from './demo.ts';
import { dumpConfigCommand } from './dump-config.ts';
import { initCommand } from './init.ts';
import { prepareDataCommand } from './prepare-data.ts';
import { reasoningGymCommand } from './reasoning-gym.ts';
import { runCommand } from './run.ts';
import { testAllCommand, testCommand } from './test.ts';
import { viewCommand } from './view.ts';
import { versionCommand } from './version.ts';
import { workerCommand } from './worker.ts';

export const COMMANDS: CliCommand[] = [
  demoCommand,
  runCommand,
  collectCommand,
  workerCommand,
  clientCommand,
  initCommand,
  testCommand,
  testAllCommand,
  prepareDataCommand,
  viewCommand,
  reasoningGymCommand,
  dumpConfigCommand,
  versionCommand,
];
