// A JSON body nested deeper, or holding more values, than anything the API takes is refused with a 400
// in JSON before anything walks it, from anyone who may send a body at all (sign-in takes one from
// anybody), and it is the client's mistake, not the service's: no error-level log line. A body of
// 200,000 nested arrays once ran the input's trimming out of stack (a 500 and a stack trace in the log
// for each request); a list of 200,000 wrong values held the event loop for seconds writing an error
// for each, and 60,000 unknown members over a second.
import { describe, expect, it } from 'vitest';
import { DEPTH_MESSAGE, MAX_BODY_DEPTH, MAX_BODY_VALUES, VALUES_MESSAGE } from '../../server/http/body.js';
import { assertConforms } from '../support/contract.js';
import { capturedLog } from '../support/log.js';
import { raw, useService } from '../support/service.js';

const log = capturedLog();
const t = useService({ logger: log.logger });

const nestedArrays = (depth: number, inner = '"x"') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

async function post(path: string, body: string, key?: string) {
  const response = await raw(`${t.apiUrl}${path}`, { method: 'POST', key, headers: { 'Content-Type': 'application/json' }, body });
  await assertConforms({
    method: 'POST',
    path: `/api${path}`,
    status: response.status,
    contentType: response.contentType,
    headers: Object.fromEntries(response.headers),
    body: response.body,
  });
  return response;
}

const errorLines = () => log.lines.filter((line) => Number(line.level) >= 50);

describe('JSON holding more values than any body the API takes', () => {
  it('to sign-in, from nobody, and to an operation of a key: 400 naming the limit, no error logged', async () => {
    const before = errorLines().length;
    const members = Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`m${i}`, 0]));
    const login = await post('/auth/login', JSON.stringify({ email: 'a@example.com', password: 'x', ...members }));
    expect(login.status).toBe(400);
    expect(login.body).toEqual({ message: VALUES_MESSAGE });
    for (const permissions of [Array.from({ length: 200_000 }, () => 0), Array.from({ length: 100_000 }, () => [])]) {
      const response = await post('/api-keys', JSON.stringify({ name: 'Many', permissions }), t.a.key);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: VALUES_MESSAGE });
    }
    expect(errorLines().slice(before)).toEqual([]);
  });

  it('at the limit the body is read and validated as any other: one error per wrong value', async () => {
    // The body's two members and the list's values make MAX_BODY_VALUES.
    const permissions = Array.from({ length: MAX_BODY_VALUES - 2 }, (_, i) => (i === 0 ? 'not-a-permission' : 'payments:read'));
    const response = await post('/api-keys', JSON.stringify({ name: 'Many', permissions }), t.a.key);
    expect(response.status, response.text.slice(0, 300)).toBe(422);
    expect(Object.keys((response.body as { errors: Record<string, string[]> }).errors)).toContain('permissions.0');
  });
});

describe('deeply nested JSON', () => {
  it('to sign-in, from nobody: 400 naming the limit, no error logged, and the service answers on', async () => {
    const before = errorLines().length;
    for (const body of [`{"email":${nestedArrays(200_000)},"password":"x"}`, nestedObjects(150_000), nestedArrays(400_000)]) {
      const response = await post('/auth/login', body);
      expect(response.status, response.text.slice(0, 200)).toBe(400);
      expect(response.body).toEqual({ message: DEPTH_MESSAGE });
    }
    expect(errorLines().slice(before)).toEqual([]);
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  it('to an operation of a key: 400 past the limit; at the limit the body is read and validated as any other', async () => {
    const past = await post('/payment-links', `{"title":${nestedArrays(MAX_BODY_DEPTH)}}`, t.a.key);
    expect(past.status).toBe(400);
    expect(past.body).toEqual({ message: DEPTH_MESSAGE });
    // The body object itself is one level: the title nests MAX_BODY_DEPTH - 1 arrays.
    const at = await post('/payment-links', `{"title":${nestedArrays(MAX_BODY_DEPTH - 1)}}`, t.a.key);
    expect(at.status).toBe(422);
    expect((at.body as { errors: Record<string, string[]> }).errors.title).toEqual(['The title must be a string.']);
  });

  it('counts no bracket inside a string: a title of brackets and escaped quotes is a title', async () => {
    const title = `"[[[{{{ \\" ${'['.repeat(30)} \\\\`;
    const made = await post('/payment-links', JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: 1000, title }), t.a.key);
    expect(made.status, made.text).toBe(200);
    expect((made.body as { data: { title: string } }).data.title).toBe(title.trim());
  });

  it('a __proto__ member is still refused, also when escaped; a key lacking the operation is refused before the body is read', async () => {
    for (const body of ['{"title":"x","meta":{"__proto__":{"admin":true}}}', '{"\\u005f_proto__":1}']) {
      const response = await post('/payment-links', body, t.a.key);
      expect(response.status).toBe(400);
      expect(response.body).toEqual({ message: 'The request body must not contain a "__proto__" member.' });
    }
    const made = await raw(`${t.apiUrl}/api-keys`, {
      method: 'POST',
      key: t.a.key,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Reader', permissions: ['payments:read'] }),
    });
    const reader = (made.body as { data: { secret: string } }).data.secret;
    expect((await post('/payment-links', nestedArrays(200_000), reader)).status).toBe(403);
  });
});
