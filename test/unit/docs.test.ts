// The documents held to the code: the configuration table of docs/operating.md is what server/config.ts
// reads, with its defaults; the table of operations of docs/integrating.md is openapi.yaml's (request,
// x-permission, x-audit); every relative link between the pages, to a file or to a heading, resolves;
// ARCHITECTURE.md names every file that opens a transaction; rules are pointed at by the file that holds
// them, never by an issue's or a migration's number; and no page calls an operation of the contract
// "not built yet". (The curl examples run in test/docs/curl-examples.test.ts.)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/config.js';
import { loadContract, type ContractOperation } from '../../server/http/contract.js';
import { defaultKeyFile } from '../../server/secrets/key-source.js';
import { ROOT } from '../support/child.js';
import { anchors, codeSpans, documentPages, links, prose, readPage, tableRows } from '../support/markdown.js';

const CONFIG_SOURCE = readFileSync(join(ROOT, 'server', 'config.ts'), 'utf8');

/** Every variable server/config.ts reads: `integer(env, 'NAME', ...)` and the like, or `env.NAME`. */
function variablesRead(): Set<string> {
  return new Set([...CONFIG_SOURCE.matchAll(/\(env, '([A-Z][A-Z0-9_]*)'/g), ...CONFIG_SOURCE.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]!));
}

/** Whether config.ts gives the variable a value of its own when it is unset. */
function hasDefaultInConfig(name: string): boolean {
  return new RegExp(`\\b(?:integer|flag|portRanges)\\(env, '${name}',|\\benv\\.${name} \\|\\| (?!undefined\\b)`).test(CONFIG_SOURCE);
}

/** Defaults the service works out from other settings, each checked here against the code that does. */
const COMPUTED_DEFAULTS: Record<string, (documented: string) => void> = {
  // The service's own address once it listens (server/start.ts); test/cli/start.test.ts sees it printed.
  PUBLIC_URL: (documented) => {
    expect(documented).toBe('http://localhost:<PORT>');
    expect(loadConfig({}).publicUrl).toBeUndefined();
  },
  // Next to the SQLite file of the default DATABASE_URL (server/secrets/key-source.ts).
  SECRETS_KEY_FILE: (documented) => {
    expect(loadConfig({}).secrets.keyFile).toBeUndefined();
    expect(normalize(documented)).toBe(normalize(defaultKeyFile(loadConfig({}).databaseUrl)!));
  },
};

function configurationTable(): { name: string; documented: string }[] {
  return tableRows(readPage('docs/operating.md'), 'Variable').map(([variable, documented]) => {
    const names = codeSpans(variable!);
    expect(names, `one variable per row: ${variable}`).toHaveLength(1);
    return { name: names[0]!, documented: documented === 'unset' ? 'unset' : (codeSpans(documented!)[0] ?? documented!) };
  });
}

describe("docs/operating.md's configuration table", () => {
  it('names every variable server/config.ts reads, once, and no other', () => {
    const documented = configurationTable().map((row) => row.name);
    expect(new Set(documented).size, 'a variable listed twice').toBe(documented.length);
    expect([...documented].sort()).toEqual([...variablesRead()].sort());
    expect(documented.length).toBeGreaterThan(40);
  });

  it('gives each its default: set to it, the configuration is the one without it', () => {
    const unset = loadConfig({});
    for (const { name, documented } of configurationTable()) {
      if (COMPUTED_DEFAULTS[name]) COMPUTED_DEFAULTS[name]!(documented);
      else if (documented === 'unset') expect(hasDefaultInConfig(name), `${name} is documented unset, but config.ts gives it a default`).toBe(false);
      else expect(loadConfig({ [name]: documented }), `${name}=${documented}`).toEqual(unset);
    }
  });
});

/** What the audit log records of a call, as the table of operations says it. */
function auditOf(operation: ContractOperation): string {
  if (operation.method === 'GET') return 'read';
  if (operation.auditedByUseCase) return 'use case';
  if (operation.permission === 'public') return 'no caller';
  return 'write';
}

describe("docs/integrating.md's table of operations", () => {
  it("is openapi.yaml's operations, each with its request, x-permission and audit behaviour", async () => {
    const documented = tableRows(readPage('docs/integrating.md'), 'Operation').map(([operation, request, permission, audit]) => ({
      operationId: codeSpans(operation!)[0],
      request: codeSpans(request!)[0],
      permissions: codeSpans(permission!),
      audit,
    }));
    const expected = (await loadContract()).operations.map((operation) => ({
      operationId: operation.operationId,
      request: `${operation.method} /api${operation.path}`,
      permissions: [operation.permission, ...Object.entries(operation.permissionByAccept).flatMap(([type, further]) => [further, type])],
      audit: auditOf(operation),
    }));
    const byId = <T extends { operationId?: string }>(rows: T[]) => [...rows].sort((a, b) => String(a.operationId).localeCompare(String(b.operationId)));
    expect(byId(documented)).toEqual(byId(expected));
  });
});

describe('links between the documents', () => {
  it('every relative link resolves: to a file or folder of the repository, and to a heading of a page', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of documentPages()) {
      for (const { target, line } of links(readPage(page))) {
        if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
        checked += 1;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path ? normalize(join(dirname(page), decodeURIComponent(path))) : page;
        const where = `${page}:${line} -> ${target}`;
        if (file.startsWith('..') || !existsSync(join(ROOT, file))) broken.push(`${where}: no ${file}`);
        else if (anchor !== undefined) {
          if (!file.endsWith('.md') || statSync(join(ROOT, file)).isDirectory()) broken.push(`${where}: an anchor into what is not a page`);
          else if (!anchors(readPage(file)).has(anchor)) broken.push(`${where}: no heading #${anchor} in ${file}`);
        }
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });
});

/** Every file under `dir` (relative to the repository) whose name ends with one of `endings`. */
function filesUnder(dir: string, endings: string[]): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && endings.some((ending) => entry.name.endsWith(ending)))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)))
    .filter((file) => !/(^|\/)(node_modules|dist)\//.test(file))
    .sort();
}

describe('where transactions open', () => {
  it("ARCHITECTURE.md's table names every file under server/ that opens one, and only those", () => {
    const implementations = ['server/store/sqlite.ts', 'server/store/postgres.ts', 'server/store/executor.ts'];
    const opening = filesUnder('server', ['.ts']).filter(
      (file) => !implementations.includes(file) && /\.transaction\(/.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    const places = tableRows(readPage('ARCHITECTURE.md'), 'Where a transaction opens').map(([where]) => codeSpans(where!)[0]!);
    const matcher = (place: string) => new RegExp(`^${place.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
    expect(
      opening.filter((file) => !places.some((place) => matcher(place).test(file))),
      'files that open a transaction the table does not name',
    ).toEqual([]);
    expect(
      places.filter((place) => !opening.some((file) => matcher(place).test(file))),
      'places the table names where no transaction opens',
    ).toEqual([]);
  });
});

/** The documents and every source file a reader of the code meets. */
function textsToRead(): string[] {
  return [
    ...documentPages(),
    ...['server', 'shared', 'client', 'scripts', 'test', 'tools/stripe-standin/src', 'tools/stripe-standin/test'].flatMap((dir) =>
      filesUnder(dir, ['.ts', '.mjs']),
    ),
    ...filesUnder('console/src', ['.ts', '.tsx']),
  ];
}

describe('pointers to where a rule lives', () => {
  it('name the file that holds it, never an issue number or a migration number', () => {
    const found: string[] = [];
    for (const file of textsToRead()) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const pointer = /\b(?:issues? #?\d+|migrations? 0\d{3})\b/i.exec(line);
          if (pointer) found.push(`${file}:${index + 1}: "${pointer[0]}"`);
        });
    }
    expect(found).toEqual([]);
  });

  it("a migration's file named in a comment or a page exists", () => {
    const migrations = new Set(readdirSync(join(ROOT, 'server', 'store', 'migrations')));
    const missing: string[] = [];
    let named = 0;
    for (const file of textsToRead()) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/migrations\/(\d{4}_[a-z0-9_]+\.ts)\b/g)) {
        named += 1;
        if (!migrations.has(match[1]!)) missing.push(`${file}: ${match[0]}`);
      }
    }
    expect(missing).toEqual([]);
    expect(named).toBeGreaterThan(10);
  });
});

describe('what the documents say is missing', () => {
  it('no page calls an operation of the contract not built yet', async () => {
    const paths = (await loadContract()).operations.map((operation) => new RegExp(`^/api${operation.path.replace(/\{[^{}]*\}/g, '[^/]+')}$`));
    const claims: string[] = [];
    for (const page of documentPages()) {
      const text = readPage(page).replace(/\s+/g, ' ');
      for (const match of text.matchAll(/not (?:built|implemented|available|in the contract) yet/gi)) {
        const around = text.slice(Math.max(0, match.index - 300), match.index + 300);
        for (const [path] of around.matchAll(/\/api\/[\w{}/-]+/g))
          if (paths.some((p) => p.test(path.replace(/\/$/, '')))) claims.push(`${page}: ${path} "${match[0]}"`);
      }
    }
    expect(claims).toEqual([]);
    // The page this holds to is read as prose, outside code.
    expect(prose('`a` b')).toBe(' b');
  });
});
