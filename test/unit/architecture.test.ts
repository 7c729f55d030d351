// The layering ARCHITECTURE.md describes, read from its table of rooms and checked on every import of
// the server's sources: a room may import only the rooms listed for it. `http/` (the HTTP adapter)
// imports no feature and no store; `store/` imports nothing above it; handlers and pages reach the
// database only through use cases. The table names every folder and top-level file under server/.
// Also: under an Idempotency-Key only the operations that ask an acquirer run in atomic phases.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const SERVER = join(ROOT, 'server');

interface Room {
  /** As the table writes it: `server/store/`, `server/config.ts`, `shared/`. */
  path: string;
  /** The rooms it may import besides itself and libraries; undefined for `anything` (the composition root, the entry point). */
  mayImport: string[] | undefined;
}

/**
 * `server/store/` -> store, `server/config.ts` -> config, `shared/` -> shared, `generated/openapi.ts` -> generated;
 * a file of a folder that is a room of its own, `server/rate-limits/limiter.ts` -> rate-limits/limiter.
 */
function roomName(path: string): string {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'server' && parts.length === 3) return `${parts[1]}/${parts[2]!.replace(/\.[jt]s$/, '')}`;
  return (parts[0] === 'server' ? parts[1]! : parts[0]!).replace(/\.[jt]s$/, '');
}

/** The text without what stands in parentheses. */
function withoutAsides(text: string): string {
  let depth = 0;
  let out = '';
  for (const char of text) {
    if (char === '(') depth += 1;
    else if (char === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += char;
  }
  return out;
}

/** The table under "Rooms and what they may import", one room a row: `| path | holds | may import |`. */
function roomsOf(markdown: string): Map<string, Room> {
  const section = markdown.split(/^## /m).find((part) => part.startsWith('Rooms and what they may import'));
  if (!section) throw new Error('ARCHITECTURE.md has no section "Rooms and what they may import"');
  const rooms = new Map<string, Room>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const path = /^`([^`]+)`$/.exec(cells[1] ?? '')?.[1];
    const imports = cells[3];
    if (path === undefined || imports === undefined) continue;
    // Each entry is a room's name; what follows it in parentheses says why.
    const mayImport =
      imports === 'anything'
        ? undefined
        : imports === 'nothing of ours'
          ? []
          : withoutAsides(imports)
              .split(',')
              .map((entry) => entry.trim());
    rooms.set(roomName(path), { path, mayImport });
  }
  return rooms;
}

const ROOMS = roomsOf(readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8'));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : files(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * The room of a source file: `server/store/x.ts` -> store, `server/config.ts` -> config, `shared/x.ts` -> shared,
 * and a file the table names as a room of its own inside a folder, `server/rate-limits/limiter.ts` -> rate-limits/limiter.
 */
function roomOf(path: string, rooms: Map<string, Room> = ROOMS): string | undefined {
  const rel = relative(ROOT, path).split('/');
  if (rel[0] === 'shared' || rel[0] === 'generated') return rel[0];
  if (rel[0] !== 'server') return undefined;
  if (rel.length === 3 && rooms.has(roomName(rel.join('/')))) return roomName(rel.join('/'));
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
function violations(sources: Map<string, string>, rooms: Map<string, Room> = ROOMS): string[] {
  const found: string[] = [];
  for (const [file, source] of sources) {
    const from = roomOf(file, rooms)!;
    const room = rooms.get(from);
    if (!room) {
      found.push(`${relative(ROOT, file)}: room "${from}" is not in the table of ARCHITECTURE.md`);
      continue;
    }
    if (room.mayImport === undefined) continue;
    for (const specifier of importsOf(source)) {
      if (!specifier.startsWith('.')) continue;
      const to = roomOf(resolve(dirname(file), specifier), rooms);
      if (to === undefined || to === from || room.mayImport.includes(to)) continue;
      found.push(`${relative(ROOT, file)} imports ${specifier} (${from} -> ${to})`);
    }
  }
  return found;
}

/** The folders and top-level files under server/ that the table does not name, and the rows that name nothing there. */
function unlisted(rooms: Map<string, Room>, entries: { name: string; isDirectory(): boolean }[]): { missing: string[]; gone: string[] } {
  const present = entries
    .filter((entry) => entry.isDirectory() || entry.name.endsWith('.ts'))
    .map((entry) => `server/${entry.name}${entry.isDirectory() ? '/' : ''}`);
  // A file that is a room of its own inside a folder is listed with its folder's row.
  const listed = [...rooms.values()].map((room) => room.path).filter((path) => path.startsWith('server/') && path.split('/').filter(Boolean).length === 2);
  return { missing: present.filter((path) => !listed.includes(path)), gone: listed.filter((path) => !present.includes(path)) };
}

describe('the layering', () => {
  it('ARCHITECTURE.md names every folder and top-level file under server/, and nothing that is not there', () => {
    expect(unlisted(ROOMS, readdirSync(SERVER, { withFileTypes: true }))).toEqual({ missing: [], gone: [] });
  });

  it('a file the table names as a room of its own inside a folder is there', () => {
    const fileRooms = [...ROOMS.values()].map((room) => room.path).filter((path) => path.split('/').length === 3 && path.endsWith('.ts'));
    expect(fileRooms.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('every room the table lets another import is a room of the table', () => {
    const named = [...ROOMS.values()].flatMap((room) => room.mayImport ?? []);
    expect(named.filter((name) => !ROOMS.has(name))).toEqual([]);
  });

  it('reads the table: paths, rooms, what each may import, and which may import anything; finds what it does not name', () => {
    const rooms = roomsOf(
      [
        '## Rooms and what they may import',
        '',
        '| Room | Holds | May import |',
        '|---|---|---|',
        '| `server/store/` | tables | domain, secrets (the key) |',
        '| `server/config.ts` | settings | nothing of ours |',
        '| `server/start.ts` | the root | anything |',
        '',
        '## Elsewhere',
        '| `server/other/` | not a room | domain |',
      ].join('\n'),
    );
    expect([...rooms]).toEqual([
      ['store', { path: 'server/store/', mayImport: ['domain', 'secrets'] }],
      ['config', { path: 'server/config.ts', mayImport: [] }],
      ['start', { path: 'server/start.ts', mayImport: undefined }],
    ]);
    const entry = (name: string, directory: boolean) => ({ name, isDirectory: () => directory });
    expect(unlisted(rooms, [entry('store', true), entry('start.ts', false), entry('extra', true), entry('notes.md', false)])).toEqual({
      missing: ['server/extra/'],
      gone: ['server/config.ts'],
    });
  });

  it('every import of the server goes to a room its own room may use', () => {
    expect(violations(new Map(files(SERVER).map((file) => [file, readFileSync(file, 'utf8')])))).toEqual([]);
  });

  it('finds http/ importing a feature or the store, store/ importing a room above it, pages reaching the store, and a room the table lacks', () => {
    const broken = new Map([
      [
        join(SERVER, 'http', 'x.ts'),
        "import { paymentLinkHandlers } from '../handlers/payment-links.js';\nimport type { Executor } from '../store/executor.js';",
      ],
      [join(SERVER, 'store', 'x.ts'), "import { checkout } from '../usecases/checkout.js';"],
      [join(SERVER, 'pages', 'x.ts'), "export { findPayment } from '../store/payments.js';"],
      [join(SERVER, 'extra', 'x.ts'), "import { checkout } from '../usecases/checkout.js';"],
      [
        join(SERVER, 'http', 'y.ts'),
        "import type { RateLimiter } from '../rate-limits/limiter.js';\nimport { createRateLimiter } from '../rate-limits/backends.js';",
      ],
    ]);
    expect(violations(broken)).toEqual([
      'server/http/x.ts imports ../handlers/payment-links.js (http -> handlers)',
      'server/http/x.ts imports ../store/executor.js (http -> store)',
      'server/store/x.ts imports ../usecases/checkout.js (store -> usecases)',
      'server/pages/x.ts imports ../store/payments.js (pages -> store)',
      'server/extra/x.ts: room "extra" is not in the table of ARCHITECTURE.md',
      'server/http/y.ts imports ../rate-limits/backends.js (http -> rate-limits)',
    ]);
  });

  it('the check sees type imports, re-exports and dynamic imports', () => {
    expect(
      importsOf("import type { Executor } from '../store/executor.js';\nexport { x } from '../handlers/a.js';\nconst m = await import('../pages/p.js');"),
    ).toEqual(['../store/executor.js', '../handlers/a.js', '../pages/p.js']);
    expect(roomOf(join(SERVER, 'http', 'app.ts'))).toBe('http');
    expect(roomOf(join(SERVER, 'start.ts'))).toBe('start');
    expect(roomOf(join(SERVER, 'rate-limits', 'limiter.ts'))).toBe('rate-limits/limiter');
    expect(roomOf(join(SERVER, 'rate-limits', 'backends.ts'))).toBe('rate-limits');
    expect(roomOf(join(SERVER, 'usecases', 'payer', 'card-form.ts'))).toBe('usecases');
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
    expect(phased.map((handler) => handler.operation).sort()).toEqual(['createCharge', 'createRefund', 'removeTokenCard']);
    for (const handler of phased) expect(handler.source, handler.operation).toMatch(/keepingAnswers\(ctx, /);
  });

  it('finds a phased handler that does not pass keepingAnswers', () => {
    const broken = new Map([['x.ts', '  createThing: {\n    atomicPhases: true,\n    async handle() {\n      return thing();\n    },\n  },']]);
    expect(phasedHandlers(broken)).toEqual([{ operation: 'createThing', source: expect.not.stringMatching(/keepingAnswers/) }]);
  });
});
