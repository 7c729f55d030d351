// OWASP API1 (broken object level authorization), systematically: every path of openapi.yaml, every
// HTTP method (those that answer 405 included), every identifier business A owns in every id slot of
// its kind (and one of each other kind), sent by business B. Each attempt must be answered exactly as an id that does not exist would be,
// and must leave all of A's data, as A's own key reads it and as the database holds it, unchanged:
// both are compared after every attempt or, in the loops over ids (one path, method and query with
// each of A's ids), after each such group, whose failure names the group and its ids (for GET, HEAD
// and OPTIONS the rows after each group, and what A reads after the method's every group).
// tenancy.test.ts walks the main cases by hand; this suite derives them from the spec so a
// new endpoint is attacked without anyone adding it here.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { signThankYou } from '../../server/pages/signing.js';
import { assertConforms, operationFor } from '../support/contract.js';
import { Payer, GOOD_CARD } from '../support/payer.js';
import { useService } from '../support/service.js';
import { KIND_OF_PARAM, allIdsOf, api, dbView, seed, tenantView, type Kind, type TenantRecords } from './fixture.js';
import { HTTP_METHODS, apiPath, filtersOf, isFreeText, loadSpec, propertiesOf, queryString, type Spec, type SpecPath } from './spec.js';

const UNKNOWN_ID = '0123456789abcdef01234567';
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const UNKNOWN_TOKEN = 'ab'.repeat(32);

let spec: Spec;
let a: TenantRecords;
let b: TenantRecords;
let baseline: unknown;
let attempts = 0;

// Each attempt reads back everything A can read (every list, the API keys and the audit log's pages
// included), so a test of many attempts takes longer than the default allows on a busy machine.
vi.setConfig({ testTimeout: 120_000 });

const t = useService();
beforeAll(async () => {
  spec = await loadSpec();
  a = await seed(t, t.a, 'a');
  b = await seed(t, t.b, 'b');
  baseline = await tenantView(t, t.a, a);
}, 120_000);

afterAll(async () => {
  console.log(`tenant: ${attempts} cross-tenant attempts`);
});

interface Attempt {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/**
 * One cross-tenant request by B, then everything stored for A and (unless `readsAfterGroup`)
 * everything A can read, compared with the baseline. The "before" of each attempt is the "after" of
 * the previous one, which was itself compared with the baseline, so every attempt is checked before
 * and after. A group of attempts that only compares the rows calls `unchangedForA` when it ends.
 */
async function attempt(request: Attempt, { readsAfterGroup = false, viewAfterGroup = false } = {}) {
  attempts += 1;
  const response = await api(t, t.b.key, request.method, request.path, request.body, request.headers);
  const where = `${request.method} ${request.path} changed A's data`;
  if (viewAfterGroup) return response;
  if (readsAfterGroup) expect(await dbView(t.sql, t.a.business.id), where).toEqual((baseline as { db: unknown }).db);
  else expect(await tenantView(t, t.a, a), where).toEqual(baseline);
  return response;
}

/**
 * A's ids to send on one templated path: every id of the kinds its parameters name, in every state the
 * fixture holds (live, deleted, paid, refunded...), and the first of every other kind. To a handler that
 * reads by kind an id of another kind is an unknown id whatever its state, so one of each shows that it
 * does; sending all 54 of A's ids to each of the 26 paths made this suite the slowest of all
 * (about 11,000 attempts), most of them asking the same question again.
 */
function idsToTry(specPath: SpecPath): string[] {
  const own = new Set(specPath.pathParams.map((name) => KIND_OF_PARAM[name]));
  const kinds = Object.entries(a.ids) as [Kind, string[]][];
  const ids = kinds.flatMap(([kind, ofKind]) => (own.has(kind) ? ofKind : ofKind.slice(0, 1)));
  // A token's value is an id of the token kind too; refunds have no path of their own.
  ids.push(...(own.has('token') ? a.tokenValues : a.tokenValues.slice(0, 1)), ...a.refundIds.slice(0, 1));
  return ids;
}

/** Everything A can read and everything stored for A, as at the start: after a group of attempts. */
async function unchangedForA(group: string) {
  expect(await tenantView(t, t.a, a), `${group} changed what A reads`).toEqual(baseline);
}

/** A valid body for a path: its own operation's example, or (for a method it refuses) any example of the path. */
function hostileBody(specPath: SpecPath, method: string): Record<string, unknown> | undefined {
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE' || method === 'OPTIONS') return undefined;
  const own = specPath.operations[method as keyof SpecPath['operations']]?.body;
  const any = own ?? Object.values(specPath.operations).find((o) => o.body)?.body ?? spec.operations.find((o) => o.body)!.body!;
  // send_email would make a successful takeover e-mail A's payer: the outbox is in A's database view.
  return { ...any.example, title: 'Taken over by B', send_email: true };
}

/** The query variants of an operation: none, and the spec's own example values. */
function queryVariants(specPath: SpecPath, method: string): string[] {
  const operation = specPath.operations[method as keyof SpecPath['operations']];
  const examples = Object.fromEntries((operation?.query ?? []).filter((p) => p.example !== undefined).map((p) => [p.name, p.example]));
  return Object.keys(examples).length ? ['', queryString(examples)] : [''];
}

describe('the fixture', () => {
  it("A's view holds records in every state, so an unchanged view means something", () => {
    const view = baseline as {
      api: Record<string, { status?: number; data?: Record<string, unknown>; contentType?: string; text?: string }>;
      db: Record<string, unknown[]>;
    };
    const total = view.api[`getOpenPaymentLinkTotalCollection ${a.live.openLink}`]!;
    expect(total.data).toMatchObject({ total_amount: 59.5, total_count: 2, total_refunded: 47 });
    expect(view.api[`getPaymentLink ${a.ids.paymentLink[1]}`]!.data).toMatchObject({ paid: true, status: 'Paid' });
    expect(view.api[`getPaymentLink ${a.ids.paymentLink[2]}`]!.status).toBe(404);
    expect(view.api[`getPaymentLink ${a.ids.paymentLink[3]}`]!.data).toMatchObject({ status: 'Paused' });
    expect(view.api[`getPaymentLink ${a.ids.paymentLink[4]}`]!.data).toMatchObject({ status: 'Expired' });
    expect(view.api[`getOpenPaymentLink ${a.ids.openLink[2]}`]!.data).toMatchObject({ state: 'exhausted', max_payments: 1, payments_count: 1 });
    expect(view.api[`getToken ${a.ids.token[1]}`]!.data).toMatchObject({ status: 'active' });
    // Payments in every state, a charge on the saved card among them, and their refunds.
    const payments = a.paymentIds.map((id) => view.api[`getPayment ${id}`]!.data!);
    expect(payments.map((payment) => payment.status).sort()).toEqual(['failed', 'paid', 'paid', 'paid', 'paid', 'partially_refunded', 'pending', 'refunded']);
    expect(payments.filter((payment) => payment.tokenization_id === a.ids.token[1])).toHaveLength(1);
    const refunds = a.paymentIds.flatMap((id) => (view.api[`listRefunds ${id}`]!.data as unknown as { _id: string }[]).map((refund) => refund._id));
    expect(refunds.sort()).toEqual([...a.refundIds].sort());
    const rotated = view.api[`getWebhookEndpoint ${a.live.webhookEndpoint}`]!.data!;
    expect(rotated.previous_secret_expires_at).toEqual(expect.any(String));
    expect((view.api.listEvents as unknown as { data: { type: string }[] }[]).flatMap((page) => page.data.map((event) => event.type)).sort()).toEqual(
      expect.arrayContaining(['payment.created', 'payment.failed', 'refund.succeeded', 'payment_link.expired']),
    );
    expect(view.api[`getPaymentLinkQrCode ${a.ids.paymentLink[0]}`]).toMatchObject({
      status: 200,
      contentType: 'image/svg+xml',
      text: expect.stringMatching(/^<svg /),
    });
    expect(view.api[`getOpenPaymentLinkQrCode ${a.ids.openLink[1]}`]!.status).toBe(404);
    expect(view.db.payments).toHaveLength(8);
    expect(view.db.refunds).toHaveLength(3);
    expect((view.db.outbox as unknown[]).length).toBeGreaterThan(0);
    expect(t.a.business.id).not.toBe(t.b.business.id);
  });

  it('every path parameter in openapi.yaml names a record kind this suite attacks', () => {
    for (const path of spec.paths) for (const name of path.pathParams) expect(KIND_OF_PARAM, `{${name}} in ${path.template}`).toHaveProperty(name);
  });
});

describe("B using A's ids on every path and method", () => {
  const templates = () => spec.paths.filter((p) => p.pathParams.length > 0);

  it('the spec has templated paths to attack', () => {
    expect(templates().length).toBeGreaterThan(0);
  });

  describe.each(HTTP_METHODS.map((method) => [method]))('%s', (method) => {
    // Hundreds of requests, each group followed by a look at all of A's data.
    it(
      "on every templated path, with every id of its kind A owns and one of each other kind: 404 (405 where the method is refused), exactly as for an unknown id; A's data unchanged",
      { timeout: 180_000 },
      async () => {
        for (const specPath of templates()) {
          const body = hostileBody(specPath, method);
          const ids = idsToTry(specPath);
          for (const query of queryVariants(specPath, method)) {
            // What an unknown id gets here: asked once per group (once for each length of id), not once per id of A's.
            const unknownAnswers = new Map<string, Promise<Awaited<ReturnType<typeof api>>>>();
            for (const foreign of ids) {
              const fill = (id: string) => Object.fromEntries(specPath.pathParams.map((name) => [name, id]));
              const path = `${apiPath(specPath.template, fill(foreign))}${query}`;
              const where = `${method} ${path}`;
              const response = await attempt({ method, path, body }, { viewAfterGroup: true });
              // HEAD is answered as GET without a body (RFC 9110).
              const defined = await operationFor(method === 'HEAD' ? 'GET' : method, path);
              expect(response.status, `${where}: ${response.text}`).toBe(defined ? 404 : 405);
              if (defined && method !== 'HEAD')
                await assertConforms({
                  method,
                  path,
                  status: response.status,
                  contentType: response.contentType,
                  headers: Object.fromEntries(response.headers),
                  body: response.body,
                });

              const unknownPath = `${apiPath(specPath.template, fill(foreign.length === 64 ? UNKNOWN_TOKEN : UNKNOWN_ID))}${query}`;
              if (!unknownAnswers.has(unknownPath)) unknownAnswers.set(unknownPath, api(t, t.b.key, method, unknownPath, body));
              const unknown = await unknownAnswers.get(unknownPath)!;
              expect({ status: response.status, body: response.body, allow: response.headers.get('allow') }, `${where} differs from an unknown id`).toEqual({
                status: unknown.status,
                body: unknown.body,
                allow: unknown.headers.get('allow'),
              });
            }
            const group = `${method} ${specPath.template}${query} with A's ids ${ids.join(', ')}`;
            // A read changes nothing unless it writes: the rows are compared after each group of reads, and
            // everything A reads once all paths were read. Writes are followed by both after every group.
            if (READ_METHODS.has(method)) expect(await dbView(t.sql, t.a.business.id), `${group} changed A's rows`).toEqual((baseline as { db: unknown }).db);
            else await unchangedForA(group);
          }
        }
        if (READ_METHODS.has(method)) await unchangedForA(`${method} on every templated path with A's ids`);
      },
    );
  });

  it("the same GETs with B's own ids succeed: the 404s above are about ownership, not the request", async () => {
    for (const specPath of templates()) {
      const get = specPath.operations.GET;
      if (!get) continue;
      const kind = KIND_OF_PARAM[specPath.pathParams[0]!]!;
      const path = apiPath(specPath.template, { [specPath.pathParams[0]!]: b.live[kind] });
      const response = await api(t, t.b.key, 'GET', path);
      expect(response.status, `${path}: ${response.text}`).toBe(200);
    }
  });
});

describe("B using A's ids on the paths without an id", () => {
  const collections = () => spec.paths.filter((p) => p.pathParams.length === 0);

  it("creates with A's ids, business_id and every other read-only value of A's record get a new record of B's; A unchanged", async () => {
    for (const specPath of collections()) {
      const post = specPath.operations.POST;
      if (!post?.body) continue;
      const writable = Object.keys(propertiesOf(post.body.schema));
      const readOnly = Object.keys(propertiesOf(post.data)).filter((field) => !writable.includes(field));
      const victim = Object.values(a.created).find((record) => readOnly.every((field) => field in record))!;
      expect(victim, `an A record shaped like ${post.operationId}'s response`).toBeDefined();
      const body = { ...post.body.example, ...Object.fromEntries(readOnly.map((field) => [field, victim[field]])), business_id: t.a.business.id };
      const path = apiPath(specPath.template, {});
      const response = await attempt({ method: 'POST', path, body });
      expect(response.status, `POST ${path}: ${response.text}`).toBe(200);
      const data = (response.body as { data: Record<string, unknown> }).data;
      expect(allIdsOf(a)).not.toContain(data._id);
      if ('business_id' in data) expect(data.business_id).toBe(t.b.business.id);
      if ('token' in data) expect(a.tokenValues).not.toContain(data.token);
    }
  });

  it("A's Idempotency-Key with A's very request replays nothing of A's to B", async () => {
    const response = await attempt({ method: 'POST', path: '/api/payment-links', body: a.idempotency.body, headers: { 'Idempotency-Key': a.idempotency.key } });
    expect(response.status).toBe(200);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    const data = (response.body as { data: Record<string, unknown> }).data;
    expect(data.business_id).toBe(t.b.business.id);
    expect(allIdsOf(a)).not.toContain(data._id);
  });

  it("lists filtered by A's references, e-mails and ids, or asked by A's ids and business, show nothing of A's", { timeout: 180_000 }, async () => {
    for (const specPath of collections()) {
      const list = specPath.operations.GET;
      // The redirect signing key, the business profile, its acquirer and its balance are one record per business, the caller's
      // own, not lists to filter. B's audit log names the ids B itself sent (its refused attempts on A's records above), which
      // tells B nothing it did not know; api/audit-events.test.ts shows B none of A's events.
      if (!list || ['getRedirectSigningKey', 'getBusiness', 'getAcquirer', 'getBalance', 'listAuditEvents'].includes(list.operationId)) continue;
      const filterFields = filtersOf(list).filter(({ schema }) => schema.type === 'string' && !schema.enum && isFreeText(schema));
      // A filter by a record's id (`filter[payment_link_id]`, `filter[tokenization_id]`, ...) gets every id
      // A owns that fits it (a token's 64-character value is longer than any id filter takes).
      const values = (name: string, maxLength = Infinity) => [
        ...a.references,
        ...a.emails,
        ...(/_id\]$/.test(name) ? allIdsOf(a).filter((id) => id.length <= maxLength) : []),
      ];
      const queries: [Record<string, unknown>, number][] = [
        ...filterFields.flatMap(({ name, schema }) =>
          values(name, schema.maxLength).map((value): [Record<string, unknown>, number] => [{ per_page: 100, [name]: value }, 200]),
        ),
        // Parameters the spec does not know are refused, never ignored into an unfiltered answer.
        [{ business_id: t.a.business.id }, 422],
        [{ id: a.live.paymentLink }, 422],
        [{ filter: { business_id: t.a.business.id } }, 422],
        [{ filter: { _id: a.live.openLink } }, 422],
      ];
      // The event list filters only by enums, dates and a flag, the collections and balance reports and the
      // payouts by dates and enums, and the webhook endpoints (16 at most) and API keys (100 at most) are not
      // filtered; every other list has text filters to try.
      if (!['listEvents', 'getCollectionsReport', 'getBalanceReport', 'listPayouts', 'listWebhookEndpoints', 'listApiKeys'].includes(list.operationId))
        expect(filterFields.length, `${list.operationId} has text filters to try`).toBeGreaterThan(0);
      for (const [query, status] of queries) {
        const path = `${apiPath(specPath.template, {})}${queryString(query)}`;
        const response = await attempt({ method: 'GET', path }, { readsAfterGroup: true });
        await assertConforms({
          method: 'GET',
          path,
          status: response.status,
          contentType: response.contentType,
          headers: Object.fromEntries(response.headers),
          body: response.body,
        });
        expect(response.status, `${path}: ${response.text}`).toBe(status);
        // A page's URLs repeat the query it was asked with: what must hold nothing of A's is the rest.
        const page = (response.body as { data?: Record<string, unknown> }).data ?? {};
        const shown = response.status === 200 ? JSON.stringify(Object.entries(page).filter(([key]) => !key.endsWith('_url') && key !== 'path')) : response.text;
        for (const id of allIdsOf(a)) expect(shown, `${path} leaks ${id}`).not.toContain(id);
        // B may hold records with the same reference (B copied A's body above): only B's may be listed.
        if (response.status === 200)
          for (const row of (response.body as { data: { data: { business_id: number }[] } }).data.data) expect(row.business_id).toBe(t.b.business.id);
      }
      await unchangedForA(`GET ${specPath.template} filtered by A's values`);
    }
  });

  it("B's reconciliation export (CSV), whole or filtered by A's ids, references and e-mails, holds nothing of A's", { timeout: 180_000 }, async () => {
    const idFilters = filtersOf(spec.operations.find((o) => o.operationId === 'listPayments')!).filter(({ name }) => /_id\]$/.test(name));
    expect(idFilters.map(({ name }) => name).sort()).toEqual(['filter[open_payment_link_id]', 'filter[payment_link_id]', 'filter[tokenization_id]']);
    const queries: Record<string, unknown>[] = [
      {},
      ...idFilters.flatMap(({ name, schema }) =>
        allIdsOf(a)
          .filter((id) => id.length <= (schema.maxLength ?? Infinity))
          .map((id) => ({ [name]: id })),
      ),
      ...a.references.map((reference) => ({ filter: { reference } })),
      ...a.emails.map((email) => ({ filter: { email } })),
    ];
    let bLines = 0;
    for (const query of queries) {
      const path = `/api/payments${queryString(query)}`;
      const response = await attempt({ method: 'GET', path, headers: { Accept: 'text/csv' } }, { readsAfterGroup: true });
      expect(response.status, `${path}: ${response.text}`).toBe(200);
      expect(response.contentType).toMatch(/^text\/csv/);
      for (const secret of [...allIdsOf(a), ...a.references, ...a.emails, ...a.attemptIds])
        expect(response.text, `${path} leaks ${secret}`).not.toContain(secret);
      if (Object.keys(query).length === 0) bLines = response.text.trim().split('\r\n').length - 1;
    }
    await unchangedForA("B's CSV exports");
    // The whole export is B's: each of its payments and refunds, a line each, so the check above read real lines.
    expect(bLines).toBe(b.paymentIds.length + b.refundIds.length);
  });

  it("methods the collection paths do not define answer 405 (or 404 where another path's template matches) even with A's ids in the body", async () => {
    for (const specPath of collections()) {
      for (const method of HTTP_METHODS) {
        // HEAD where GET is defined is that GET, answered without a body.
        if (specPath.operations[method] || (method === 'HEAD' && specPath.operations.GET)) continue;
        const path = apiPath(specPath.template, {});
        const body =
          method === 'HEAD' || method === 'GET' || method === 'OPTIONS'
            ? undefined
            : { _id: a.live.paymentLink, ids: allIdsOf(a), business_id: t.a.business.id };
        const response = await attempt({ method, path, body }, { readsAfterGroup: true });
        // GET /tokenizations/create-token is getToken with the id "create-token".
        expect(response.status, `${method} ${path}: ${response.text}`).toBe((await operationFor(method === 'HEAD' ? 'GET' : method, path)) ? 404 : 405);
        if (response.status === 405) expect(response.headers.get('allow')).toBeTruthy();
      }
    }
    await unchangedForA("the methods the collection paths do not define, with A's ids in the body");
  });
});

describe("the hosted pages never join one business's payment to another's link", () => {
  /** The thank-you page for these ids, signed with the service's key (as only the service can). */
  async function thankYou(paymentId: string, linkId: string) {
    const result = { payment_id: paymentId, payment_link_id: linkId, payment_status: '1' };
    return new Payer(t.url).get(`/payment/thank-you?${new URLSearchParams({ ...result, signature: signThankYou(t.pageKeys.thankYou, result) })}`);
  }

  it("the thank-you page shows A's payment only with A's link, never with B's, even when the pair is signed", async () => {
    const own = await thankYou(a.paymentIds[1]!, a.live.openLink);
    expect(own.html).toContain('Payment received');
    expect(own.html).toContain('RM 42.00');
    const pairs: [string, string][] = [
      [a.paymentIds[1]!, b.live.openLink],
      [b.paymentIds[1]!, a.live.openLink],
      [a.paymentIds[0]!, b.ids.paymentLink[1]!],
    ];
    for (const [paymentId, linkId] of pairs) {
      const page = await thankYou(paymentId, linkId);
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('Payment received');
      expect(page.html).not.toContain(paymentId);
      expect(page.html).not.toMatch(/MYR \d/);
    }
  });

  it("a checkout attempt of B's link submitted on A's link is refused and charges nothing", async () => {
    const url = new URL((a.created[a.live.openLink] as { payment_url: string }).payment_url);
    const payer = new Payer(t.url);
    const form = await payer.open(url.pathname + url.search);
    attempts += 1;
    const replay = await payer.submit(
      { ...form, attemptId: b.attemptIds[1]! },
      { amount: '99.00', name: 'Mallory', email: 'mallory@example.com', ...GOOD_CARD },
    );
    expect(replay.status).toBe(403);
    expect(replay.location).toBeNull();
    expect(await tenantView(t, t.a, a)).toEqual(baseline);
  });
});
