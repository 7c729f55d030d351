// The layering ARCHITECTURE.md describes, checked on every import of the server's sources: a room may
// import only the rooms listed for it. `http/` (the HTTP adapter) imports no feature and no store;
// `store/` imports nothing above it; handlers and pages reach the database only through use cases.
// Also: under an Idempotency-Key only the operations that ask an acquirer run in atomic phases.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVER = join(ROOT, 'server');

/** What each room may import (besides itself and libraries). `app` is the composition root and the entry point. */
const ALLOWED: Record<string, string[]> = {
  domain: [],
  shared: [],
  generated: [],
  secrets: [],
  html: [],
  qr: [],
  'rate-limiter': [],
  store: ['domain', 'secrets'],
  acquirers: ['domain'],
  ratelimit: ['store', 'rate-limiter'],
  outbox: ['store', 'domain', 'shared', 'secrets', 'logger', 'html'],
  usecases: ['store', 'acquirers', 'outbox', 'domain', 'shared', 'secrets'],
  http: ['domain', 'generated', 'logger', 'file-locations', 'rate-limiter'],
  handlers: ['usecases', 'http', 'domain', 'generated', 'qr'],
  pages: ['usecases', 'acquirers', 'domain', 'shared', 'html', 'qr', 'rate-limiter', 'acquirer-notifications'],
  'acquirer-notifications': ['usecases', 'rate-limiter'],
  logger: [],
  'file-locations': [],
  config: ['logger', 'outbox', 'ratelimit', 'store', 'http', 'secrets', 'pages', 'acquirer-notifications'],
};
const COMPOSITION = new Set(['start', 'main']);

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `server/store/x.ts` -> store, `server/config.ts` -> config, `shared/x.ts` -> shared. */
function roomOf(path: string): string | undefined {
  const rel = relative(ROOT, path).split('/');
  if (rel[0] === 'shared' || rel[0] === 'generated') return rel[0];
  if (rel[0] !== 'server') return undefined;
  return rel.length === 2 ? rel[1]!.replace(/\.[jt]s$/, '') : rel[1];
}

function importsOf(source: string): string[] {
  const specifiers: string[] = [];
  for (const match of source.matchAll(/^[ \t]*(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gm)) specifiers.push(match[1]!);
  for (const match of source.matchAll(/^[ \t]*import\s+'([^']+)'/gm)) specifiers.push(match[1]!);
  for (const match of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) specifiers.push(match[1]!);
  return specifiers;
}

/** Imports that break the table, for sources given by path. */
function violations(sources: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [file, source] of sources) {
    const from = roomOf(file)!;
    if (COMPOSITION.has(from)) continue;
    const allowed = ALLOWED[from];
    if (!allowed) {
      found.push(`${relative(ROOT, file)}: room "${from}" is not in the table of ARCHITECTURE.md (add it there and here)`);
      continue;
    }
    for (const specifier of importsOf(source)) {
      if (!specifier.startsWith('.')) continue;
      const to = roomOf(resolve(dirname(file), specifier));
      if (to === undefined || to === from || allowed.includes(to)) continue;
      found.push(`${relative(ROOT, file)} imports ${specifier} (${from} -> ${to})`);
    }
  }
  return found;
}

describe('the layering', () => {
  it('every import of the server goes to a room its own room may use', () => {
    expect(violations(new Map(files(SERVER).map((file) => [file, readFileSync(file, 'utf8')])))).toEqual([]);
  });

  it('finds http/ importing a feature or the store, store/ importing a room above it, and pages reaching the store', () => {
    const broken = new Map([
      [
        join(SERVER, 'http', 'x.ts'),
        "import { paymentLinkHandlers } from '../handlers/payment-links.js';\nimport type { Executor } from '../store/executor.js';",
      ],
      [join(SERVER, 'store', 'x.ts'), "import { checkout } from '../usecases/checkout.js';"],
      [join(SERVER, 'pages', 'x.ts'), "export { findPayment } from '../store/payments.js';"],
    ]);
    expect(violations(broken)).toEqual([
      'server/http/x.ts imports ../handlers/payment-links.js (http -> handlers)',
      'server/http/x.ts imports ../store/executor.js (http -> store)',
      'server/store/x.ts imports ../usecases/checkout.js (store -> usecases)',
      'server/pages/x.ts imports ../store/payments.js (pages -> store)',
    ]);
  });

  it('the check sees type imports, re-exports and dynamic imports', () => {
    expect(
      importsOf("import type { Executor } from '../store/executor.js';\nexport { x } from '../handlers/a.js';\nconst m = await import('../pages/p.js');"),
    ).toEqual(['../store/executor.js', '../handlers/a.js', '../pages/p.js']);
    expect(roomOf(join(SERVER, 'http', 'app.ts'))).toBe('http');
    expect(roomOf(join(SERVER, 'start.ts'))).toBe('start');
    expect(roomOf(join(ROOT, 'shared', 'webhook-signature.ts'))).toBe('shared');
  });
});

/** The handlers that declare `atomicPhases`, each with the source of its declaration up to the next handler. */
function phasedHandlers(sources: Map<string, string>): { operation: string; source: string }[] {
  return [...sources.values()].flatMap((source) =>
    [...source.matchAll(/^ {2}(\w+): \{\n([\s\S]*?)^ {2}\},$/gm)]
      .filter((match) => /^ {4}atomicPhases: true,/m.test(match[2]!))
      .map((match) => ({ operation: match[1]!, source: match[2]! })),
  );
}

describe('Idempotency-Key transactions', () => {
  const handlers = new Map(files(join(SERVER, 'handlers')).map((file) => [file, readFileSync(file, 'utf8')]));

  // ARCHITECTURE.md: a keyed request is one transaction, except the operations that ask an acquirer,
  // whose use cases keep the key's answer in each of their own transactions.
  it('runs in atomic phases exactly the operations that ask an acquirer, each handing its use case a way to keep its answers', () => {
    const phased = phasedHandlers(handlers);
    expect(phased.map((handler) => handler.operation).sort()).toEqual(['createCharge', 'createRefund']);
    for (const handler of phased) expect(handler.source, handler.operation).toMatch(/keepingAnswers\(ctx, /);
  });

  it('finds a phased handler that does not pass keepingAnswers', () => {
    const broken = new Map([['x.ts', '  createThing: {\n    atomicPhases: true,\n    async handle() {\n      return thing();\n    },\n  },']]);
    expect(phasedHandlers(broken)).toEqual([{ operation: 'createThing', source: expect.not.stringMatching(/keepingAnswers/) }]);
  });
});
