// The real service on 127.0.0.1:0 over its own fresh database, with two businesses and their
// clients, so every test file runs in isolation and tenant checks have a second tenant at hand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { createPaymentsClient, type PaymentsClient } from '../../client/index.js';
import { silentLogger } from '../../server/logger.js';
import { pageKeys, type PageKeys } from '../../server/pages/signing.js';
import { ANY_PORT, type Resolver } from '../../server/outbox/webhook-target.js';
import { startService, type RunningService, type StartOptions } from '../../server/start.js';
import { knexFor } from '../../server/store/database.js';
import { issueKey } from '../../server/store/api-keys.js';
import { findOrCreateBusiness, type Business } from '../../server/store/businesses.js';
import { conformance } from './contract.js';
import { createMigratedTestDatabase } from './database.js';
import { startedPerTest, useStarted, withStarted } from './lifecycle.js';
import { secretsSettings } from './secrets.js';

export interface Tenant {
  business: Business;
  key: string;
  client: PaymentsClient;
}

export interface TestService {
  service: RunningService;
  /** The test's own folder (database, mail files). */
  dir: string;
  /** The service's DATABASE_URL, for processes started beside it on the same database. */
  databaseUrl: string;
  /** http://127.0.0.1:port */
  url: string;
  /** http://127.0.0.1:port/api */
  apiUrl: string;
  /** Knex on a connection of its own to the service's database, for tests that look at or plant rows. */
  sql: Knex;
  a: Tenant;
  /** Another business with a key of its own, for a test that needs a clean one (e.g. one per property run). */
  newTenant(name: string): Promise<Tenant>;
  b: Tenant;
  /** The keys the service signs payer pages with (from its PAGE_SIGNING_SECRET), for tests that check signatures. */
  pageKeys: PageKeys;
  /** A client for any key (e.g. a revoked or malformed one), responses still checked against the spec. */
  clientFor(apiKey: string): PaymentsClient;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  http?: StartOptions['http'];
  linger?: StartOptions['linger'];
  publicUrl?: string;
  mail?: StartOptions['mail'];
  outbox?: StartOptions['outbox'];
  rateLimit?: StartOptions['rateLimit'];
  apiKeyCacheMs?: number;
  provider?: StartOptions['sandbox'];
  /** Where Stripe's SDK goes for businesses on Stripe: a stand-in (test/support/stripe.ts). */
  stripeApiUrl?: string;
  /** Silent unless a test wants to read the service's log lines. */
  logger?: StartOptions['logger'];
  pageLimits?: StartOptions['pageLimits'];
  notificationLimits?: StartOptions['notificationLimits'];
  trustProxyHops?: number;
  /** Stubbed name resolution for webhook hosts: no test resolves a name for real. */
  resolve?: StartOptions['resolve'];
  expirySweepMs?: number;
  pendingSweep?: StartOptions['pendingSweep'];
  payerEmailsPerDay?: number;
  invitationsPerDay?: number;
  /** PostgreSQL's pool and statement timeout. */
  database?: StartOptions['database'];
  /** The console build served at /console (console/dist unless given). */
  consoleDir?: string;
  /** Members' session timeouts. */
  sessions?: StartOptions['sessions'];
  /** Failed attempts at members' secrets per account from an address, per address and per account (raised unless a test sets its own). */
  signInLimits?: StartOptions['signInLimits'];
  /** Password resets by e-mail: limits and link lifetime. */
  passwordResets?: StartOptions['passwordResets'];
  /** When the validators no request has needed yet are compiled (a second after listening unless given). */
  validatorWarmUpMs?: number;
  /** GET /metrics: its token, and a port of its own (0: any free one). Off unless given. */
  metrics?: StartOptions['metrics'];
}

/**
 * Knows only `localhost`, and the merchant host of openapi.yaml's examples as loopback, so that an
 * example registers as a webhook endpoint and whatever is sent to it stays on this machine (no one
 * listens at its port). A test that needs another name says what it resolves to.
 */
export const offlineResolver: Resolver = async (hostname) => {
  if (hostname === 'localhost' || hostname === 'merchant.example.com') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (name resolution is stubbed in tests)`), { code: 'ENOTFOUND' });
};

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-test-'));
  const database = await createMigratedTestDatabase(dir);
  const service = await startService({
    databaseUrl: database.url,
    database: options.database,
    port: 0,
    host: '127.0.0.1',
    publicUrl: options.publicUrl,
    // Mail lands in this test's own folder unless a test runs an SMTP server.
    mail: { mailDir: join(dir, 'mail'), ...options.mail },
    // The suites' webhook receivers listen on loopback, at ports the system picks, which production refuses.
    outbox: { pollMs: 50, webhookAllowPrivate: true, webhookAllowedPorts: ANY_PORT, ...options.outbox },
    // The suites send thousands of requests a second per key; the limiter stays in the path, raised.
    rateLimit: { perSecond: 1_000_000, ...options.rateLimit },
    // Tests revoke keys and expect 401 at once; the cache's own behaviour has its own test.
    apiKeyCacheMs: options.apiKeyCacheMs ?? 0,
    logger: options.logger ?? silentLogger(),
    sandbox: options.provider,
    stripeApiUrl: options.stripeApiUrl,
    http: options.http,
    linger: options.linger,
    validatorWarmUpMs: options.validatorWarmUpMs,
    metrics: options.metrics,
    secrets: secretsSettings(database.url),
    // Like the API limit: in the path, raised, except where a test sets its own.
    pageLimits: {
      perAddress: 1_000_000,
      perLink: 1_000_000,
      perCard: 1_000_000,
      checkoutsPerAddress: 1_000_000,
      openCheckoutsPerLink: 10_000,
      ...options.pageLimits,
    },
    notificationLimits: { perAddress: 1_000_000, ...options.notificationLimits },
    trustProxyHops: options.trustProxyHops,
    resolve: options.resolve ?? offlineResolver,
    expirySweepMs: options.expirySweepMs,
    pendingSweep: options.pendingSweep,
    // Like the limits above: counted, raised, except where a test sets its own.
    payerEmailsPerDay: options.payerEmailsPerDay ?? 1_000_000,
    invitationsPerDay: options.invitationsPerDay ?? 1_000_000,
    consoleDir: options.consoleDir,
    sessions: options.sessions,
    signInLimits: {
      perAccount: { limit: 1_000, seconds: 60 },
      perAddress: { limit: 1_000_000, seconds: 60 },
      accountCeiling: { limit: 1_000_000, seconds: 60 },
      noticeAfter: 1_000,
      ...options.signInLimits,
    },
    passwordResets: options.passwordResets,
  });
  const apiUrl = `${service.url}/api`;
  const clientFor = (apiKey: string) => {
    const client = createPaymentsClient({ baseUrl: apiUrl, apiKey });
    client.use(conformance);
    return client;
  };
  const tenant = async (name: string): Promise<Tenant> => {
    const business = await findOrCreateBusiness(service.db, name);
    const { key } = await issueKey(service.db, business.id);
    return { business, key, client: clientFor(key) };
  };
  const a = await tenant('Business A');
  const b = await tenant('Business B');
  const sql = knexFor(database.url);
  return {
    service,
    dir,
    databaseUrl: database.url,
    url: service.url,
    apiUrl,
    sql,
    a,
    b,
    newTenant: tenant,
    pageKeys: pageKeys(service.secretsKey.derive('page-signing')),
    clientFor,
    async close() {
      await sql.destroy();
      await service.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Options, or a function that makes them when the service starts (from what an earlier beforeAll made). */
export type LazyOptions<O> = O | (() => O | Promise<O>);
export const resolvedOptions = async <O>(options: LazyOptions<O>): Promise<O> =>
  typeof options === 'function' ? (options as () => O | Promise<O>)() : options;

/**
 * The test service of this file (or of the describe block it is called in), started before its
 * tests and closed after them.
 */
export function useService(options: LazyOptions<TestServiceOptions> = {}): TestService {
  return useStarted(async () => startTestService(await resolvedOptions(options)));
}

/** For files whose tests each start a service of their own: call it in a test; the service closes after that test. */
export function useServicePerTest(): (options?: TestServiceOptions) => Promise<TestService> {
  return startedPerTest(startTestService);
}

/** A test service of one test's own, closed when `work` is done. */
export function withService<R>(options: TestServiceOptions, work: (t: TestService) => Promise<R>): Promise<R> {
  return withStarted(() => startTestService(options), work);
}

/** What start.ts takes for the service over a database a test made itself, less what is the same for all of them. */
export type OverDatabaseOptions = Omit<StartOptions, 'databaseUrl' | 'port' | 'host'>;

/**
 * The service as main.ts starts it, over a database a test made or a child process wrote (a restart
 * after a crash, a migration from an old schema, what a CLI stored, a second instance beside the
 * fixture's): on 127.0.0.1:0, silent, with the suites' secrets, and nothing of the fixture's own
 * (no businesses added, no limits raised) unless `options` says so.
 */
function startServiceOver(databaseUrl: string, options: OverDatabaseOptions = {}): Promise<RunningService> {
  return startService({ databaseUrl, port: 0, host: '127.0.0.1', logger: silentLogger(), secrets: secretsSettings(databaseUrl), ...options });
}

/** The service over `databaseUrl` for one test's `work`, closed when it is done. */
export function withServiceOver<R>(databaseUrl: string, options: OverDatabaseOptions, work: (service: RunningService) => Promise<R>): Promise<R> {
  return withStarted(() => startServiceOver(databaseUrl, options), work);
}

/**
 * The service over a database that an earlier beforeAll of the file made (its url and options read
 * when this one starts), started before the tests of the file (or describe block) and closed after them.
 */
export function useServiceOver(options: () => OverDatabaseOptions & { databaseUrl: string }, timeoutMs?: number): RunningService {
  return useStarted(async () => {
    const { databaseUrl, ...rest } = options();
    return startServiceOver(databaseUrl, rest);
  }, timeoutMs);
}

/** Raw HTTP for what the typed client cannot send (bad JSON, wrong methods, odd headers). */
export async function raw(
  url: string,
  init: RequestInit & { key?: string } = {},
): Promise<{ status: number; headers: Headers; contentType: string | null; body: unknown; text: string; bytes: Buffer }> {
  const headers = new Headers(init.headers);
  if (init.key) headers.set('Authorization', `Bearer ${init.key}`);
  const response = await fetch(url, { ...init, headers });
  // The bytes as sent, for bodies that are not text (a PNG); the text as response.text() reads it.
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // left as text: the assertion that follows will say so
  }
  return { status: response.status, headers: response.headers, contentType: response.headers.get('content-type'), body, text, bytes };
}
