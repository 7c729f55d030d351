// The console's lists without a browser: times on the business's clock (not Kuala Lumpur's whatever
// the business chose), date presets counted in the business's days and sent as them, statuses and event types in words for every value the contract declares, the audit log as
// sentences, and the CSV export rewritten to the business's clock.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { auditSentence, auditWording } from '../../console/src/lib/audit.js';
import { exportFileName, inBusinessTime } from '../../console/src/lib/csv-export.js';
import { dayIn, formatDateTime, isoIn, presetRange } from '../../console/src/lib/dates.js';
import { EVENT_WORDS, eventWords } from '../../console/src/lib/events.js';
import { apiQuery, hasFilters } from '../../console/src/lib/filters.js';
import { STATUS_WORDS, statusChoices, statusWords } from '../../console/src/lib/statuses.js';
import { SPEC_PATH } from '../../server/file-locations.js';

const readSpec = (): unknown => parseYaml(readFileSync(SPEC_PATH, 'utf8'));

describe('times in the business time zone', () => {
  const instant = '2026-11-28T21:24:03Z';

  test('an instant reads on the clock and day of the zone it is given', () => {
    expect(formatDateTime(instant, 'Asia/Kuala_Lumpur')).toMatch(/29 Nov 2026.*5:24/);
    expect(formatDateTime(instant, 'Europe/London')).toMatch(/28 Nov 2026.*9:24/);
    expect(formatDateTime(instant, 'America/New_York')).toMatch(/28 Nov 2026.*4:24/);
    expect(dayIn(instant, 'Asia/Kuala_Lumpur')).toBe('2026-11-29');
    expect(dayIn(instant, 'America/New_York')).toBe('2026-11-28');
  });

  test('an instant with the zone offset in place of Z is the same instant', () => {
    expect(isoIn(instant, 'Asia/Kuala_Lumpur')).toBe('2026-11-29T05:24:03+08:00');
    expect(isoIn(instant, 'America/New_York')).toBe('2026-11-28T16:24:03-05:00');
    expect(isoIn(instant, 'Asia/Kolkata')).toBe('2026-11-29T02:54:03+05:30');
    expect(isoIn(instant, 'UTC')).toBe('2026-11-28T21:24:03+00:00');
    for (const zone of ['Asia/Kuala_Lumpur', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'])
      expect(Date.parse(isoIn(instant, zone))).toBe(Date.parse(instant));
  });

  test('presets count back from the business day today, that day included', () => {
    expect(presetRange('Today', '2026-11-29')).toBe('2026-11-29,2026-11-29');
    expect(presetRange('Last 7 days', '2026-11-29')).toBe('2026-11-23,2026-11-29');
    expect(presetRange('Last 30 days', '2026-03-01')).toBe('2026-01-31,2026-03-01');
    expect(presetRange('This month', '2026-11-29')).toBe('2026-11-01,2026-11-29');
  });

  test("business days go to the API as the business's days (filter[created_on_between]), the other filters as they are", () => {
    expect(apiQuery({ created_at_between: '2026-11-29,2026-11-29', status: 'paid' })).toEqual({
      'filter[created_on_between]': '2026-11-29,2026-11-29',
      'filter[status]': 'paid',
    });
    expect(hasFilters({})).toBe(false);
    expect(hasFilters({ email: ' ' })).toBe(false);
    expect(hasFilters({ status: 'paid' })).toBe(true);
  });
});

describe('words, not codes', () => {
  /** Every enum value the spec gives a status-like property of a schema (status, state, outcome). */
  function specStatuses(): string[] {
    const schemas = (readSpec() as { components: { schemas: Record<string, unknown> } }).components.schemas;
    const found = new Set<string>();
    const visit = (node: unknown, key?: string) => {
      if (typeof node !== 'object' || node === null) return;
      const schema = node as { enum?: unknown[]; properties?: Record<string, unknown> };
      if (key !== undefined && /^(status|state|outcome)$/.test(key) && Array.isArray(schema.enum))
        for (const value of schema.enum) if (typeof value === 'string') found.add(value);
      for (const [name, child] of Object.entries(schema.properties ?? {})) visit(child, name);
    };
    for (const [name, schema] of Object.entries(schemas)) visit(schema, name === 'PayoutStatus' ? 'status' : undefined);
    return [...found].sort();
  }

  test('every status the spec declares has its words, and nothing else is worded', () => {
    expect(Object.keys(STATUS_WORDS).sort()).toEqual(specStatuses());
  });

  test('statuses read as words a merchant uses', () => {
    expect(statusWords('succeeded')).toBe('Succeeded');
    expect(statusWords('in_transit')).toBe('In transit');
    expect(statusWords('partially_refunded')).toBe('Partly refunded');
    expect(statusWords('requires_action')).toBe('Requires action');
    for (const [code, { words }] of Object.entries(STATUS_WORDS)) expect(words, code).not.toMatch(/_/);
    expect(statusChoices(['paid', 'in_transit'])).toEqual([
      { value: 'paid', label: 'Paid' },
      { value: 'in_transit', label: 'In transit' },
    ]);
  });

  test('every event type the spec declares reads in words', () => {
    const spec = readSpec() as { components: { parameters: Record<string, { schema: { enum: string[] } }> } };
    expect(Object.keys(EVENT_WORDS).sort()).toEqual([...spec.components.parameters.EventTypeFilter!.schema.enum].sort());
    expect(eventWords('refund.succeeded')).toBe('Refund succeeded');
    expect(eventWords('payment.created')).toBe('Payment made');
    expect(eventWords('subscription.renewed')).toBe('Subscription renewed');
  });

  test('the audit log says what happened, naming the record where one is read', () => {
    expect(auditSentence({ action: 'pauseOpenPaymentLink', details: null }, 'Tabung Surau')).toBe("Paused open payment link 'Tabung Surau'");
    expect(auditWording('pauseOpenPaymentLink').names).toBe('open_payment_link');
    expect(auditSentence({ action: 'createRefund', details: null })).toBe('Refunded a payment');
    expect(auditSentence({ action: 'auth.totp_enabled', details: null })).toBe('Turned two-factor sign-in on');
    expect(auditSentence({ action: 'team.member_role_changed', details: { old_role: 'admin', new_role: 'developer' } })).toBe(
      "Changed a member's role from admin to developer",
    );
    expect(auditSentence({ action: 'team.invitation_created', details: { email: 'farah@kedaikopi.my', role: 'support' } })).toBe(
      'Invited a member (farah@kedaikopi.my as support)',
    );
    // An action this console was built without is spelled out rather than shown as an id.
    expect(auditSentence({ action: 'archiveWidgetBatch', details: null })).toBe('Archive widget batch');
    expect(auditSentence({ action: 'auth.passkey_added', details: null })).toBe('Passkey added');
  });
});

describe('the CSV export on the business clock', () => {
  const header = 'line,id,payment_id,created_at,updated_at,status,description';
  const csv = [
    header,
    'payment,p1,p1,2026-11-28T15:30:00Z,2026-11-28T15:31:00Z,paid,"before midnight, KL"',
    'refund,r1,p1,2026-11-28T22:00:00Z,2026-11-28T22:00:00Z,succeeded,',
    'payment,p2,p2,2026-11-28T21:24:03Z,2026-11-28T21:24:03.5Z,paid,"a ""quoted"" note, with 2026-11-28T21:24:03Z inside"',
    'refund,r2,p2,2026-11-29T01:00:00Z,2026-11-29T01:00:00Z,succeeded,"two\r\nlines"',
    '',
  ].join('\r\n');

  test('its times carry the business offset, and other cells are kept byte for byte', () => {
    const out = inBusinessTime(csv, 'Asia/Kuala_Lumpur');
    expect(out.split('\r\n')[0]).toBe(header);
    expect(out).toContain('payment,p2,p2,2026-11-29T05:24:03+08:00,2026-11-29T05:24:03+08:00,paid,"a ""quoted"" note, with 2026-11-28T21:24:03Z inside"');
    expect(out).toContain('refund,r2,p2,2026-11-29T09:00:00+08:00,2026-11-29T09:00:00+08:00,succeeded,"two\r\nlines"');
    expect(out).not.toMatch(/,\d{4}-\d\d-\d\dT[\d:.]+Z,/);
  });

  test('the file is named by the business day', () => {
    expect(exportFileName(new Date('2026-11-28T21:24:03Z'), 'Asia/Kuala_Lumpur')).toBe('payments-2026-11-29.csv');
    expect(exportFileName(new Date('2026-11-28T21:24:03Z'), 'Europe/London')).toBe('payments-2026-11-28.csv');
  });
});
