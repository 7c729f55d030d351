// An operator's command as `npm run <name> -- <args>` runs it, without npm: the script's command line
// is read from package.json and run with Node and tsx's loader directly. npm itself only finds the
// line and adds its own start-up to every run (half of each run's time in the CLI suites); the
// suites of test/cli/keys.test.ts and create-user.test.ts still run their commands through npm.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPTS = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** `['set-provider', '--', '--business', 'X']` -> the node command that runs `tsx scripts/keys.ts set-provider --business X`. */
export function npmScript(args: readonly string[]): { command: string; args: string[] } {
  const [name, ...rest] = args;
  const line = SCRIPTS[name ?? ''];
  if (!line?.startsWith('tsx ')) throw new Error(`package.json has no tsx script named ${name}`);
  const given = rest[0] === '--' ? rest.slice(1) : rest;
  return { command: process.execPath, args: ['--import', 'tsx', ...line.slice('tsx '.length).split(' '), ...given] };
}
