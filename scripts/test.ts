// The whole test suite, as README and CI run it: contract lint, freshness of generated files, type
// check, then the vitest suites. Ends with one line `N passed, N failed` counting the tests (a check
// that fails counts as one failed test, so the line never reads clean when something is wrong).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`, REDOCLY_TELEMETRY: 'off' };

function run(title: string, command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): boolean {
  console.log(`\n==> ${title}: ${command} ${args.join(' ')}`);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...env, ...extraEnv } });
  const ok = result.status === 0;
  console.log(`==> ${title}: ${ok ? 'ok' : `FAILED (exit ${result.status ?? result.signal})`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return ok;
}

interface VitestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numTotalTestSuites: number;
  numFailedTestSuites: number;
}

function runVitest(title: string, extraEnv: NodeJS.ProcessEnv, args: string[]): { passed: number; failed: number } {
  const dir = mkdtempSync(join(tmpdir(), 'payments-vitest-'));
  const report = join(dir, 'report.json');
  const ok = run(title, 'vitest', ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args], extraEnv);
  try {
    const summary = JSON.parse(readFileSync(report, 'utf8')) as VitestSummary;
    // A file that fails to load has no tests to count; count it as one failure.
    const failed = summary.numFailedTests + (ok || summary.numFailedTests > 0 ? 0 : Math.max(1, summary.numFailedTestSuites));
    return { passed: summary.numPassedTests, failed };
  } catch {
    return { passed: 0, failed: 1 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const args = process.argv.slice(2);
let passed = 0;
let failed = 0;
const failures: string[] = [];
const check = (title: string, ok: boolean) => {
  if (ok) passed += 1;
  else {
    failed += 1;
    failures.push(title);
  }
};

if (!args.includes('--only-tests')) {
  check('lint openapi.yaml', run('lint openapi.yaml', 'redocly', ['lint', 'openapi.yaml']));
  check('generated files are fresh', run('generated files are fresh', 'tsx', ['scripts/generate.ts', '--check']));
  check('type check', run('type check', 'tsc', ['--noEmit']));
}

const vitestArgs = args.filter((arg) => arg !== '--only-tests');
const suite = runVitest('tests (embedded SQLite)', {}, vitestArgs);
passed += suite.passed;
failed += suite.failed;
if (suite.failed > 0) failures.push('tests (embedded SQLite)');

console.log(`\n${failures.length ? `failed: ${failures.join(', ')}` : 'all checks and tests passed'}`);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
