// The lint rules that keep super-linear patterns out, applied through the project's own ESLint config:
// the expiry pattern that once took over a second on one form post is an error, as is a trailing-run
// pattern that moves quadratically; the linear replacements pass.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const eslint = new ESLint({ cwd: root });

async function ruleErrors(source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(root, 'server', 'acquirers', 'lint-probe.ts') });
  return result!.messages.filter((message) => message.severity === 2).map((message) => message.ruleId ?? message.message);
}

describe('eslint with eslint-plugin-regexp over server code', () => {
  it('rejects the old expiry pattern: polynomial backtracking', async () => {
    expect(await ruleErrors('export const EXPIRY = /^\\s*(\\d{1,2})\\s*\\/?\\s*(\\d{2}|\\d{4})\\s*$/;\n')).toContain('regexp/no-super-linear-backtracking');
  });

  it('rejects a pattern that moves quadratically over a long run', async () => {
    expect(await ruleErrors("export const trim = (text: string) => text.replace(/\\/+$/, '');\n")).toContain('regexp/no-super-linear-move');
  });

  it('accepts the expiry pattern now in use', async () => {
    expect(
      await ruleErrors("export const EXPIRY = /^(\\d{1,2})\\/?(\\d{2}|\\d{4})$/;\nexport const compact = (text: string) => text.replace(/\\s/g, '');\n"),
    ).toEqual([]);
  });
});
