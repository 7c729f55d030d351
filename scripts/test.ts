// The whole test suite, as README and CI run it: contract lint (Redocly, Spectral with the OWASP
// ruleset, swagger-parser), freshness of generated files, type check, code lint (ESLint), format (Prettier),
// no import circles (dpdm, type-only imports included: two modules in a circle of types still cannot be
// read or moved apart), then the vitest suites (vitest.config.ts: the service's on SQLite and again on
// PostgreSQL; those whose subject does not depend on the database, and the Stripe stand-in's, once).
// Ends with one line `N passed, N failed` counting the tests (a check that fails counts as one failed
// test, so the line never reads clean when something is wrong).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { TEMPLATE_MARK } from './throwaway-database.js';

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
  testResults?: {
    name: string;
    status: string;
    message?: string;
    startTime?: number;
    endTime?: number;
    assertionResults?: { fullName: string; status: string; failureMessages?: string[] }[];
  }[];
}

// CI keeps only the tail of the output: the failures are repeated there, a few lines each.
function failedTests(summary: VitestSummary): string[] {
  const lines: string[] = [];
  for (const file of summary.testResults ?? []) {
    const name = file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
    const failing = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
    for (const test of failing) lines.push(`${name} > ${test.fullName}: ${firstLines(test.failureMessages?.[0])}`);
    if (failing.length === 0 && file.status === 'failed') lines.push(`${name}: ${firstLines(file.message)}`);
  }
  return lines;
}

// CI's budget is spent file by file: the slowest files of each run say where to look first.
function printSlowest(title: string, summary: VitestSummary, count = 12): void {
  const files = (summary.testResults ?? [])
    .map((file) => ({
      name: file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name,
      seconds: ((file.endTime ?? 0) - (file.startTime ?? 0)) / 1000,
    }))
    .sort((a, b) => b.seconds - a.seconds);
  const total = files.reduce((sum, file) => sum + file.seconds, 0);
  console.log(`\n==> ${title}: ${files.length} files, ${total.toFixed(0)} s in all; the slowest:`);
  for (const file of files.slice(0, count)) console.log(`  ${file.seconds.toFixed(1).padStart(7)} s  ${file.name}`);
}

// Fixed waits (test/support/wait.ts's sleep, which writes each test process's totals to TEST_SLEEP_LOG):
// time a run spends doing nothing, which waiting on events would save.
function printSleeps(title: string, dir: string, count = 5): void {
  let waits = 0;
  let ms = 0;
  let wallMs = 0;
  const files = new Map<string, number>();
  for (const name of existsSync(dir) ? readdirSync(dir) : []) {
    const totals = JSON.parse(readFileSync(join(dir, name), 'utf8')) as { waits: number; ms: number; wallMs: number; files: Record<string, { ms: number }> };
    waits += totals.waits;
    ms += totals.ms;
    wallMs += totals.wallMs;
    for (const [file, each] of Object.entries(totals.files)) files.set(file, (files.get(file) ?? 0) + each.ms);
  }
  console.log(
    `==> ${title}: fixed sleeps: ${waits} waits, ${(ms / 1000).toFixed(1)} s in all (${(wallMs / 1000).toFixed(1)} s of wall time: sleeps side by side count once)${files.size ? '; the longest:' : ''}`,
  );
  const longest = [...files].sort((a, b) => b[1] - a[1]).slice(0, count);
  for (const [file, fileMs] of longest) console.log(`  ${(fileMs / 1000).toFixed(1).padStart(7)} s  ${file}`);
}

function firstLines(text: string | undefined): string {
  return (text ?? '').split('\n').slice(0, 3).join(' / ').slice(0, 600);
}

function runVitest(title: string, extraEnv: NodeJS.ProcessEnv, args: string[]): { passed: number; failed: number } {
  const dir = mkdtempSync(join(tmpdir(), 'payments-vitest-'));
  const report = join(dir, 'report.json');
  const sleeps = join(dir, 'sleeps');
  const ok = run(title, 'vitest', ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...args], {
    ...extraEnv,
    TEST_SLEEP_LOG: sleeps,
  });
  try {
    const summary = JSON.parse(readFileSync(report, 'utf8')) as VitestSummary;
    // A file that fails to load has no tests to count; count it as one failure.
    const failed = summary.numFailedTests + (ok || summary.numFailedTests > 0 ? 0 : Math.max(1, summary.numFailedTestSuites));
    const named = failedTests(summary);
    printSlowest(title, summary);
    printSleeps(title, sleeps);
    if (!ok && named.length === 0) named.push('vitest failed with no failed test: an unhandled error or a file that did not load (see above)');
    for (const line of named) failedCases.push(`${title}: ${line}`);
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
const failedCases: string[] = [];
const check = (title: string, ok: boolean) => {
  if (ok) passed += 1;
  else {
    failed += 1;
    failures.push(title);
  }
};

if (!args.includes('--only-tests')) {
  check('lint openapi.yaml', run('lint openapi.yaml', 'redocly', ['lint', 'openapi.yaml']));
  check(
    'spectral (oas + OWASP)',
    run('spectral (oas + OWASP)', 'spectral', ['lint', 'openapi.yaml', '--ruleset', '.spectral.yaml', '--fail-severity', 'warn']),
  );
  check('swagger-parser validates openapi.yaml', run('swagger-parser validates openapi.yaml', 'tsx', ['scripts/validate-contract.ts']));
  check('generated files are fresh', run('generated files are fresh', 'tsx', ['scripts/generate.ts', '--check']));
  check('type check', run('type check', 'tsc', ['--noEmit']));
  check('type check (console)', run('type check (console)', 'tsc', ['-p', 'console', '--noEmit']));
  check('lint code (eslint)', run('lint code (eslint)', 'eslint', ['server', 'client', 'console', 'scripts', 'test', 'tools']));
  check('format (prettier)', run('format (prettier)', 'prettier', ['--check', '.', '--log-level', 'warn']));
  check(
    'no import circles (dpdm)',
    run('no import circles (dpdm)', 'dpdm', [
      ...['server', 'shared', 'client', 'scripts', 'test', 'tools'].map((folder) => `${folder}/**/*.ts`),
      'console/src/**/*.{ts,tsx}',
      '--no-tree',
      '--no-warning',
      '--no-progress',
      '--exit-code',
      'circular:1',
    ]),
  );
}

const vitestArgs = args.filter((arg) => arg !== '--only-tests');
const record = (title: string, suite: { passed: number; failed: number }) => {
  passed += suite.passed;
  failed += suite.failed;
  if (suite.failed > 0) failures.push(title);
};
record('tests (embedded SQLite)', runVitest('tests (embedded SQLite)', {}, vitestArgs));

// The same suite on PostgreSQL. Every test database of this run carries the run id in its name; the
// runner drops any that a crashed test left behind.
const postgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const runId = randomBytes(4).toString('hex');

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 3_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let postgresProblem: string | undefined;
try {
  await withAdmin((client) => client.query('select 1'));
} catch (error) {
  postgresProblem = (error as Error).message || String(error);
}
if (postgresProblem) {
  const line = '!'.repeat(100);
  console.log(
    `\n${line}\n!! PostgreSQL run SKIPPED: no PostgreSQL server reachable at ${postgresUrl.replace(/\/\/[^@/]*@/, '//***@')} (${postgresProblem}).\n!! Only the embedded SQLite run was tested. Set TEST_POSTGRES_URL or start PostgreSQL (.ci/run does).\n${line}`,
  );
} else {
  // Only the service's projects: the suites of the `once` project (vitest.config.ts) and the stand-in's
  // (tools/stripe-standin/) do not depend on the database and ran above. With file filters that name
  // only those, this run finds none and passes.
  record(
    'tests (PostgreSQL)',
    runVitest('tests (PostgreSQL)', { TEST_POSTGRES_URL: postgresUrl, TEST_RUN_ID: runId }, [
      '--project',
      'service',
      '--project',
      'service-clock',
      '--passWithNoTests',
      ...vitestArgs,
    ]),
  );
  const leftovers = await withAdmin(async (client) => {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`payments_test_${runId}_%`]);
    for (const { datname } of rows) await client.query(`drop database if exists "${datname}" with (force)`);
    // The run's migrated template (test/support/database.ts) is meant to outlive its tests.
    return rows.filter(({ datname }) => !datname.startsWith(`payments_test_${runId}_${TEMPLATE_MARK}`)).length;
  });
  console.log(`==> PostgreSQL: every test database of run ${runId} is dropped${leftovers ? ` (${leftovers} left by failed tests)` : ''}`);
}

if (failedCases.length) console.log(`\nfailed tests:\n${failedCases.map((line) => `  ${line}`).join('\n')}`);
console.log(
  `\n${failures.length ? `failed: ${failures.join(', ')}` : 'all checks and tests passed'}${postgresProblem ? ' (PostgreSQL run SKIPPED, see above)' : ''}`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 ? 1 : 0;
