// orval, the other generator integrators reach for, reads openapi.yaml into a fetch client and zod
// validators that compile under tsc --strict (type arrays, patterns and formats included).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/child.js';
import { strictProject, typeCheck } from '../support/typescript.js';

mkdirSync(join(ROOT, 'test-artifacts'), { recursive: true });
// Inside the repository so the generated code finds zod; test-artifacts/ is not committed.
const dir = mkdtempSync(join(ROOT, 'test-artifacts', 'orval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('orval generated from openapi.yaml', () => {
  it('writes a fetch client and zod validators that pass tsc --strict', () => {
    const spec = join(ROOT, 'openapi.yaml');
    writeFileSync(
      join(dir, 'orval.config.cjs'),
      `module.exports = { fetch: { input: ${JSON.stringify(spec)}, output: { target: './out/fetch.ts', client: 'fetch' } }, zod: { input: ${JSON.stringify(spec)}, output: { target: './out/zod.ts', client: 'zod' } } };`,
    );
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'orval', 'dist', 'bin', 'orval.mjs'), '--config', join(dir, 'orval.config.cjs')], {
      cwd: dir,
      stdio: 'pipe',
    });
    expect(typeCheck(strictProject(dir, ['out']))).toBe('');
  }, 120_000);
});
