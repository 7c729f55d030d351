// Where the master key comes from: SECRETS_KEY, or on SQLite a key file created on first start with
// mode 0600 and reused after; on PostgreSQL nothing but SECRETS_KEY. Several processes starting at
// once end up with one key.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultKeyFile, loadMasterKey, POSTGRES_NEEDS_KEY, readOrCreateKeyFile, SecretsKeyError } from '../../server/secrets/key-source.js';
import { MasterKey, parseMasterKey } from '../../server/secrets/master-key.js';
import { ROOT } from '../support/child.js';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'payments-keyfile-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('defaultKeyFile', () => {
  it('sits next to the SQLite file; PostgreSQL and in-memory databases have none', () => {
    expect(defaultKeyFile('sqlite:./data/payments.sqlite')).toBe('data/secrets.key');
    expect(defaultKeyFile('sqlite:/srv/pay/db.sqlite')).toBe('/srv/pay/secrets.key');
    expect(defaultKeyFile('sqlite::memory:')).toBeUndefined();
    expect(defaultKeyFile('postgres://app@db/payments')).toBeUndefined();
  });
});

describe('the key file on SQLite', () => {
  it('is created on first load with mode 0600, holding the key in hex, and reused by the next load', () => {
    const dir = freshDir();
    const databaseUrl = `sqlite:${join(dir, 'nested', 'payments.sqlite')}`;
    const first = loadMasterKey(databaseUrl);
    const file = join(dir, 'nested', 'secrets.key');
    expect(first).toMatchObject({ source: 'key file', file, created: true, looseMode: false });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    expect(text).toMatch(/^[0-9a-f]{64}\n$/);
    expect(new MasterKey(parseMasterKey(text)).id).toBe(first.key.id);

    const second = loadMasterKey(databaseUrl);
    expect(second).toMatchObject({ source: 'key file', file, created: false });
    expect(second.key.id).toBe(first.key.id);
    expect(readFileSync(file, 'utf8')).toBe(text);
    expect(readdirSync(join(dir, 'nested'))).toEqual(['secrets.key']);
  });

  it('is created 0600 whatever the umask allows', () => {
    const dir = freshDir();
    const previous = process.umask(0o000);
    try {
      readOrCreateKeyFile(join(dir, 'secrets.key'));
    } finally {
      process.umask(previous);
    }
    expect(statSync(join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
  });

  it('is taken from SECRETS_KEY_FILE when set', () => {
    const dir = freshDir();
    const loaded = loadMasterKey(`sqlite:${join(dir, 'db.sqlite')}`, { keyFile: join(dir, 'keys', 'master.key') });
    expect(loaded).toMatchObject({ file: join(dir, 'keys', 'master.key'), created: true });
    expect(existsSync(join(dir, 'secrets.key'))).toBe(false);
  });

  it('is neither read nor created when SECRETS_KEY is set', () => {
    const dir = freshDir();
    const key = new MasterKey(randomBytes(32));
    expect(loadMasterKey(`sqlite:${join(dir, 'db.sqlite')}`, { key })).toEqual({ key, source: 'SECRETS_KEY' });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('accepts a key file written by an operator in base64, and reports one that others can read', () => {
    const dir = freshDir();
    const bytes = randomBytes(32);
    writeFileSync(join(dir, 'secrets.key'), `${bytes.toString('base64')}\n`, { mode: 0o644 });
    chmodSync(join(dir, 'secrets.key'), 0o644);
    const loaded = loadMasterKey(`sqlite:${join(dir, 'db.sqlite')}`);
    expect(loaded).toMatchObject({ created: false, looseMode: true });
    expect(loaded.key.id).toBe(new MasterKey(bytes).id);
  });

  it('refuses a key file that holds no key, clearly, instead of replacing it', () => {
    const dir = freshDir();
    for (const content of ['', 'not a key\n']) {
      writeFileSync(join(dir, 'secrets.key'), content, { mode: 0o600 });
      expect(() => loadMasterKey(`sqlite:${join(dir, 'db.sqlite')}`)).toThrow(SecretsKeyError);
      expect(() => loadMasterKey(`sqlite:${join(dir, 'db.sqlite')}`)).toThrow(
        `the secrets key file ${join(dir, 'secrets.key')} does not hold a key: it must be 32 bytes`,
      );
      expect(readFileSync(join(dir, 'secrets.key'), 'utf8')).toBe(content);
    }
  });

  it('is a key of the process alone for an in-memory database', () => {
    const a = loadMasterKey('sqlite::memory:');
    const b = loadMasterKey('sqlite::memory:');
    expect(a.source).toBe('memory');
    expect(a.key.id).not.toBe(b.key.id);
  });

  it('ends with one key when several processes start at once on a database without one', { timeout: 60_000 }, async () => {
    const ROUNDS = 20;
    const RACERS = 6;
    const racers = Array.from({ length: RACERS }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/key-file-race.ts'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] });
      const waiting: ((line: string) => void)[] = [];
      let buffered = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        buffered += chunk;
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          waiting.shift()?.(line);
        }
      });
      // A racer that dies answers every pending read with how it ended, which the test then reports.
      child.once('close', (code) => waiting.splice(0).forEach((resolve) => resolve(`racer exited with ${code}`)));
      const nextLine = () => new Promise<string>((resolve) => waiting.push(resolve));
      return { child, nextLine };
    });
    try {
      // Every racer is loaded and waiting before the first round.
      await Promise.all(racers.map(async (racer) => expect(await racer.nextLine()).toBe('ready')));
      for (let round = 0; round < ROUNDS; round += 1) {
        const dir = freshDir();
        const file = join(dir, 'secrets.key');
        const answers = racers.map((racer) => racer.nextLine());
        // Released together: each racer finds no file and tries to create one.
        for (const racer of racers) racer.child.stdin.write(`${file}\n`);
        const results = (await Promise.all(answers)).map((line) => JSON.parse(line) as { path: string; id: string; created: boolean });
        const onDisk = new MasterKey(parseMasterKey(readFileSync(file, 'utf8')));
        expect(
          results.map((result) => result.id),
          `round ${round}`,
        ).toEqual(results.map(() => onDisk.id));
        expect(
          results.filter((result) => result.created),
          `round ${round}`,
        ).toHaveLength(1);
        expect(readdirSync(dir), `round ${round}`).toEqual(['secrets.key']);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      }
    } finally {
      for (const racer of racers) racer.child.stdin.end();
    }
  });
});

describe('on PostgreSQL', () => {
  it('needs SECRETS_KEY: no key file is read or created', () => {
    expect(() => loadMasterKey('postgres://app@db/payments')).toThrow(SecretsKeyError);
    expect(() => loadMasterKey('postgres://app@db/payments', { keyFile: '/tmp/never.key' })).toThrow(POSTGRES_NEEDS_KEY);
    const key = new MasterKey(randomBytes(32));
    expect(loadMasterKey('postgres://app@db/payments', { key }).key).toBe(key);
  });
});
