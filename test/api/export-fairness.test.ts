// A payments export is long work for one business; it must not be the others' wait. A business runs
// one export at a time (a second answers 429 with Retry-After), an export gives the event loop back
// between its batches, and a reader that stops reading holds no database connection.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { plantPayments } from '../support/bulk.js';
import { raw, useService } from '../support/service.js';
import { sleep, waitFor } from '../support/wait.js';

const PAYMENTS = 30_000;
// One PostgreSQL connection: anything an export held would be every other request's wait.
const t = useService({ database: { poolMax: 1 } });

beforeAll(async () => {
  await plantPayments(t.sql, t.a.business.id, PAYMENTS);
}, 180_000);

const csv = (key: string) => ({ authorization: `Bearer ${key}`, accept: 'text/csv' });

/** An export whose answer has begun and whose body nobody reads until told to. */
async function unreadExport(key = t.a.key) {
  const controller = new AbortController();
  const response = await fetch(`${t.apiUrl}/payments`, { headers: csv(key), signal: controller.signal });
  return { response, abort: () => controller.abort() };
}

/** Whether an export of the business's (no) payments of reference `none` may start now. */
const exportAnswers = async () =>
  (await raw(`${t.apiUrl}/payments?filter%5Breference%5D=none`, { key: t.a.key, headers: { accept: 'text/csv' } })).status === 200;

describe('payments exports leave room for everyone else', () => {
  it('runs one export per business at a time: a second answers 429 with Retry-After, another business exports meanwhile', async () => {
    const first = await unreadExport();
    expect(first.response.status).toBe(200);
    const second = await raw(`${t.apiUrl}/payments`, { key: t.a.key, headers: { accept: 'text/csv' } });
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(second.body).toEqual({ message: expect.stringMatching(/export of this business's payments is already running/) });
    // The JSON list is no export: it answers as ever.
    expect((await t.a.client.GET('/payments')).response.status).toBe(200);
    const theirs = await raw(`${t.apiUrl}/payments`, { key: t.b.key, headers: { accept: 'text/csv' } });
    expect(theirs.status).toBe(200);

    // Read to its end, the export gives its turn back.
    const lines = (await first.response.text()).split('\r\n').filter(Boolean);
    expect(lines).toHaveLength(PAYMENTS + 1);
    expect(await exportAnswers()).toBe(true);
  }, 60_000);

  it('gives the turn back when the reader goes away mid-export', async () => {
    const abandoned = await unreadExport();
    expect(abandoned.response.status).toBe(200);
    abandoned.abort();
    await waitFor('the lease to be given back', exportAnswers, 10_000);
  }, 30_000);

  it('holds no database connection while its reader does not read', async () => {
    const stalled = await unreadExport();
    expect(stalled.response.status).toBe(200);
    // Long enough for the export to fill every buffer between it and the unread socket.
    await sleep(500);
    const started = performance.now();
    const { response } = await t.b.client.GET('/payment-links');
    expect(response.status).toBe(200);
    expect((await t.a.client.GET('/payments', { params: { query: { per_page: 1 } } })).response.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(2_000);
    stalled.abort();
  }, 30_000);

  it('gives the event loop back between batches: /health answers promptly while an export streams', async () => {
    await waitFor('the earlier exports to have given their turn back', exportAnswers, 35_000);
    const delay = monitorEventLoopDelay({ resolution: 1 });
    const health: number[] = [];
    let exporting = true;
    const probe = (async () => {
      while (exporting) {
        const started = performance.now();
        expect((await fetch(`${t.url}/health`)).status).toBe(200);
        health.push(performance.now() - started);
        // eslint-disable-next-line no-restricted-syntax -- paces the probe beside the export; the test waits on the export, not on this
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    delay.enable();
    const started = performance.now();
    const body = await (await fetch(`${t.apiUrl}/payments`, { headers: csv(t.a.key) })).text();
    const took = performance.now() - started;
    delay.disable();
    exporting = false;
    await probe;
    expect(body.split('\r\n').filter(Boolean)).toHaveLength(PAYMENTS + 1);
    const longestStallMs = delay.max / 1e6;
    // Bounds far above a slice of the export's work and far below the whole of it, as the machine
    // running the suites is shared (`npm run bench -- --scale` measures the stall itself).
    expect(health.length).toBeGreaterThan(3);
    expect(longestStallMs).toBeLessThan(took / 4);
    expect(Math.max(...health)).toBeLessThan(took / 3);
  }, 120_000);
});
