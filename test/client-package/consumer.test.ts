// The client as a consumer app gets it: the package is packed (`npm pack`, which builds it), installed
// from the tarball into an app outside the repository (no access to the repository's node_modules),
// type-checked by a strict TypeScript program that uses every operation and the typed errors, and
// driven by a plain .mjs program against the real server. This proves the package, not the source tree.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/child.js';
import { useService } from '../support/service.js';
import { typeCheck } from '../support/typescript.js';

const here = join(ROOT, 'test', 'client-package', 'app');
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
const clientPackage = JSON.parse(readFileSync(join(ROOT, 'client', 'package.json'), 'utf8')) as {
  name: string;
  dependencies: Record<string, string>;
  exports: Record<string, unknown>;
};

let work: string;
let app: string;

/** npm with a clean environment: no workspace or prefix of the repository leaks into the app. */
function npm(args: string[], cwd: string): string {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  return execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'client-package-'));
  npm(['pack', '--silent', '--pack-destination', work], join(ROOT, 'client'));
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  app = join(work, 'app');
  execFileSync('mkdir', ['-p', app]);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }));
  for (const file of ['consumer.ts', 'drive.mjs', 'tsconfig.json']) copyFileSync(join(here, file), join(app, file));
  npm(['install', '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball), `@types/node@${rootPackage.devDependencies['@types/node']}`], app);
}, 180_000);

afterAll(async () => {
  if (work) rmSync(work, { recursive: true, force: true });
});
// After the set-up above, which takes its time before the service is needed.
const t = useService();

describe('the client package a consumer installs', () => {
  it('holds built JavaScript and types only, and depends on what its README says', () => {
    const installed = join(app, 'node_modules', ...clientPackage.name.split('/'));
    const files = execFileSync('find', ['.', '-type', 'f'], { cwd: installed, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files.filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
    expect(files).toContain('./dist/client/index.js');
    expect(files).toContain('./dist/client/webhooks.d.ts');
    expect(files).toContain('./dist/client/redirects.d.ts');
    expect(Object.keys(clientPackage.dependencies).sort()).toEqual(['openapi-fetch', 'standardwebhooks']);
    // The main entry runs in a browser: nothing of Node's in it or in what it imports.
    const main = ['dist/client/index.js', 'dist/generated/openapi.js'].map((file) => readFileSync(join(installed, file), 'utf8')).join('\n');
    expect(main).not.toMatch(/from ['"]node:/);
  });

  it('type-checks a strict program that uses every operation and the typed errors', () => {
    // The app's own tsconfig.json: strict, exactOptionalPropertyTypes, noUncheckedIndexedAccess.
    expect(typeCheck(join(app, 'tsconfig.json'))).toBe('');
  }, 120_000);

  it('drives every operation against the real server from plain JavaScript', async () => {
    // Not execFileSync: the server under test runs in this process and must keep answering.
    const { stdout: printed } = await promisify(execFile)(process.execPath, ['drive.mjs'], {
      cwd: app,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, BASE_URL: t.apiUrl, PAYMENTS_KEY: t.a.key },
    });
    const result = JSON.parse(printed.trim().split('\n').pop()!) as {
      statuses: Record<string, number>;
      validation: Record<string, string[]>;
      missing: number;
      webhookRefused: boolean;
      redirectRefused: boolean;
    };
    const operations = [
      'createToken',
      'getToken',
      'createOpenPaymentLink',
      'listOpenPaymentLinks',
      'getOpenPaymentLink',
      'updateOpenPaymentLink',
      'deleteOpenPaymentLink',
      'getOpenPaymentLinkTotalCollection',
      'getOpenPaymentLinkTopCollection',
      'getOpenPaymentLinkQrCode',
      'createPaymentLink',
      'listPaymentLinks',
      'getPaymentLink',
      'getPaymentLinkQrCode',
      'updatePaymentLink',
      'deletePaymentLink',
      'listPayments',
      'getPayment',
    ];
    expect(Object.keys(result.statuses).sort()).toEqual([...operations].sort());
    for (const operation of operations) expect(result.statuses[operation], operation).toBe(operation === 'getPayment' ? 404 : 200);
    expect(result.validation).toEqual({ amount: ['The amount must be at least 500.'] });
    expect(result.missing).toBe(404);
    expect(result.webhookRefused).toBe(true);
    expect(result.redirectRefused).toBe(true);
  }, 60_000);
});
