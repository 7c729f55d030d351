// A service answers as soon as it listens, before its warm-up has compiled the request validators (a
// second after listening): the first request to an operation compiles that operation's validators
// itself and is validated as every later one is, and the log line saying all of them are compiled
// comes only once the warm-up has compiled the rest and loaded the libraries requests otherwise load
// on first use (each a stall of the event loop for everyone when it is loaded).
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.js';
import { raw, useService } from '../support/service.js';
import { waitFor } from '../support/wait.js';

const json = { 'Content-Type': 'application/json', Accept: 'application/json' };
const goodLink = { email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1' };

function capturedLog() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const compiledLines = () =>
    lines.map((line) => JSON.parse(line) as { msg?: string; libraries_loaded?: string[] }).filter((line) => line.msg === 'request validators compiled');
  return { logger: createLogger({ level: 'info', destination }), compiledLines };
}

describe('before the warm-up', () => {
  const log = capturedLog();
  // Not within the suite's run: every request below is its operation's first.
  const t = useService({ logger: log.logger, validatorWarmUpMs: 10 * 60_000 });

  it('a bad body to an operation not asked before is refused with 422 naming every problem', async () => {
    const bad = await raw(`${t.apiUrl}/payment-links`, {
      method: 'POST',
      key: t.a.key,
      headers: json,
      body: JSON.stringify({ currency: 'MYR', amount: 'ten', title: 'Invoice 1' }),
    });
    expect(bad.status).toBe(422);
    expect(bad.contentType).toMatch(/^application\/json\b/);
    expect(bad.body).toEqual({
      message: 'The given data was invalid.',
      errors: { email: ['The email field is required.'], amount: [expect.stringContaining('amount')] },
    });
    expect(log.compiledLines()).toEqual([]);
  });

  it('a good body is then accepted, and the first answer of a list is its JSON', async () => {
    const created = await raw(`${t.apiUrl}/payment-links`, { method: 'POST', key: t.a.key, headers: json, body: JSON.stringify(goodLink) });
    expect(created.status).toBe(200);
    const list = await raw(`${t.apiUrl}/payment-links`, { key: t.a.key, headers: { Accept: 'application/json' } });
    expect(list.status).toBe(200);
    expect(list.contentType).toBe('application/json; charset=utf-8');
    expect(list.text).toBe(JSON.stringify(list.body));
    expect(list.text).toContain(`"_id":"${(created.body as { data: { _id: string } }).data._id}"`);
  });

  it('a query parameter of an operation not asked before is validated too', async () => {
    const bad = await raw(`${t.apiUrl}/payments?page=zero`, { key: t.a.key, headers: { Accept: 'application/json' } });
    expect(bad.status).toBe(422);
    expect(Object.keys((bad.body as { errors: Record<string, unknown> }).errors)).toEqual(['page']);
  });
});

describe('the warm-up', () => {
  const log = capturedLog();
  const t = useService({ logger: log.logger, validatorWarmUpMs: 0 });

  it('says once that every validator is compiled, and requests are validated after it as before', async () => {
    await waitFor('the warm-up', () => log.compiledLines().length > 0);
    expect(log.compiledLines()).toHaveLength(1);
    // Loaded into this process, where the export, the QR codes, two-factor sign-in, the console and the
    // webhook deliveries find them already there.
    // webhook deliveries find them already there (the CommonJS ones are in require's cache; otpauth and
    // @koa/send are ES modules, which keep no cache a test can read).
    const { cache, resolve } = createRequire(import.meta.url);
    const commonJs = ['csv-stringify', 'qrcode', 'undici', 'standardwebhooks'];
    expect(commonJs.filter((name) => !cache[resolve(name)])).toEqual([]);
    expect(log.compiledLines()[0]!.libraries_loaded).toEqual(expect.arrayContaining([...commonJs, 'otpauth', '@koa/send']));
    const bad = await raw(`${t.apiUrl}/payment-links`, { method: 'POST', key: t.a.key, headers: json, body: JSON.stringify({ ...goodLink, email: 'nope' }) });
    expect(bad.status).toBe(422);
    expect(Object.keys((bad.body as { errors: Record<string, unknown> }).errors)).toEqual(['email']);
  });
});
