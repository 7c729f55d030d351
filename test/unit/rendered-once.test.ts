// A phased write (a refund, a charge) keeps its answer under the Idempotency-Key inside a phase's
// transaction and sends it after: both must be one rendering, or a retry's replay differs from the
// first answer in `meta.timestamp` whenever the second rendering falls in the next second.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ok } from '../../server/handlers/envelope.js';
import { renderedOnce } from '../../server/usecases/platform/idempotency.js';

type Outcome = { result: 'created'; refund: { _id: string; status: string }; payment: { _id: string; amount_refunded: number } };

const settled = (): Outcome => ({ result: 'created', refund: { _id: 'rf_1', status: 'failed' }, payment: { _id: 'py_1', amount_refunded: 0 } });

afterEach(() => {
  vi.useRealTimers();
});

describe('renderedOnce', () => {
  it('answers an equal outcome built afresh a second later with the reply it kept, timestamp and all', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-29T19:15:19.996Z'));
    let renderings = 0;
    const reply = renderedOnce((outcome: Outcome) => {
      renderings += 1;
      return { status: 200, body: ok(outcome.refund) };
    });
    const kept = reply(settled());
    vi.setSystemTime(new Date('2026-11-29T19:15:20.004Z'));
    const sent = reply(settled());
    expect(sent).toBe(kept);
    expect(sent.body.meta.timestamp).toBe('2026-11-29 19:15:19 UTC');
    expect(renderings).toBe(1);
  });

  it('renders an outcome that says something else anew', () => {
    const reply = renderedOnce((outcome: Outcome) => ({ status: 200, body: ok(outcome.refund) }));
    const pending = reply({ ...settled(), refund: { _id: 'rf_1', status: 'pending' } });
    const failed = reply(settled());
    expect(pending.body.data.status).toBe('pending');
    expect(failed.body.data.status).toBe('failed');
  });
});
