// The composition root: opens the database, migrates it, and assembles the service from its rooms:
// use cases over the store, the API handlers and the payer pages over the use cases, the HTTP
// adapter over both, and the outbox worker. Used by main.ts and by the tests, which start the real
// app on 127.0.0.1:0.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_OUTBOX, DEFAULT_RATE_LIMIT, type MailSettings, type OutboxConfig } from './config.js';
import { openPaymentLinkHandlers } from './handlers/open-payment-links.js';
import { paymentLinkHandlers } from './handlers/payment-links.js';
import { eventHandlers } from './handlers/events.js';
import { webhookEndpointHandlers } from './handlers/webhook-endpoints.js';
import { paymentHandlers } from './handlers/payments.js';
import { redirectSigningKeyHandlers } from './handlers/redirect-signing-keys.js';
import { authHandlers } from './handlers/auth.js';
import { teamHandlers } from './handlers/team.js';
import { businessHandlers } from './handlers/business.js';
import { tokenizationHandlers } from './handlers/tokenizations.js';
import { apiKeyHandlers } from './handlers/api-keys.js';
import { auditEventHandlers } from './handlers/audit-events.js';
import { reportHandlers } from './handlers/reports.js';
import { createHttpApp } from './http/app.js';
import { loadContract, warmUp } from './http/contract.js';
import { ConflictError, ValidationError, toErrorResponse } from './http/errors.js';
import { DEFAULT_LINGER, type LingerLimits } from './http/linger.js';
import type { Handlers } from './http/operations.js';
import type { RateLimiter } from './rate-limiter.js';
import { createRateLimiter, type RateLimitConfig } from './ratelimit/limiters.js';
import type { AuditTrail, Scopes } from './http/routes.js';
import { DEFAULT_HTTP_TIMEOUTS, createHttpServer, type HttpTimeouts } from './http/server.js';
import { createLogger, type Logger } from './logger.js';
import { createDeliverers } from './outbox/deliverers.js';
import { createMailer, loadNodemailer, type Mailer } from './outbox/mailer.js';
import type { Resolver } from './outbox/webhook-target.js';
import { OutboxWorker } from './outbox/worker.js';
import { pageRoutes } from './pages/routes.js';
import { consoleRoutes, loadSend } from './console.js';
import { loadLibraries, type LibraryLoaders } from './library-warm-up.js';
import { loadCsvStringify } from './handlers/payments-csv.js';
import { loadQrCode } from './qr.js';
import { loadTotp } from './usecases/two-factor.js';
import { loadSigner, loadUndici } from './outbox/webhook-client.js';
import { CONSOLE_DIST_PATH } from './file-locations.js';
import { acquirerRoutes } from './acquirer-notifications/endpoint.js';
import type { CardFormAcquirer } from './acquirers/acquirer.js';
import { SandboxAcquirer } from './acquirers/sandbox.js';
import { stripeApiAddress } from './acquirers/stripe.js';
import { openDatabase, type Database, type DatabaseOptions } from './store/database.js';
import { loadMasterKey, type SecretsSettings } from './secrets/key-source.js';
import type { MasterKey } from './secrets/master-key.js';
import { sealLegacyWebhookSecrets } from './store/seal-legacy-secrets.js';
import { DEFAULT_PAGE_LIMITS, PageLimiter, type PageLimits } from './pages/limits.js';
import { DEFAULT_NOTIFICATION_LIMITS, NotificationLimiter, type NotificationLimits } from './acquirer-notifications/limits.js';
import { pageKeys } from './pages/signing.js';
import { deleteExpiredKeys } from './store/idempotency.js';
import { CallerCache, DEFAULT_CALLER_CACHE_MS } from './store/api-key-cache.js';
import { NO_BROADCAST, redisKeyChangeBroadcast } from './store/api-key-broadcast.js';
import type { KeepReply, KeptReply, UseCaseContext } from './usecases/context.js';
import type { Executor } from './store/executor.js';
import { reasonOf } from './domain/audit-reasons.js';
import { auditEventExists, outcomeOf, recordAuditEvent, type AuditDetails, type AuditEventInput } from './store/audit-events.js';
import { expireDueLinks } from './usecases/expiry-sweep.js';
import { settleStalePending } from './usecases/pending-sweep.js';
import { DEFAULT_SESSION_SETTINGS, sessionCaller, type SessionSettings } from './usecases/auth.js';
import { DEFAULT_SIGN_IN_LIMITS, KNOWN_CLIENT_DAYS, SecretAttemptLimiter, type SignInLimits } from './ratelimit/secret-attempts.js';
import { DEFAULT_PASSWORD_RESETS, PasswordResetLimiter, type PasswordResetSettings } from './ratelimit/password-resets.js';
import { passwordResetHandlers } from './handlers/password-resets.js';
import { forgetSignInAddressesBefore } from './store/sign-in-addresses.js';
import { deleteResetsExpiredBefore } from './store/password-resets.js';
import { runIdempotent } from './usecases/idempotency.js';
import { DEFAULT_AUDIT_RETENTION_DAYS, sweepAuditEvents } from './usecases/audit-log.js';
import { AcquirerDirectory } from './usecases/acquirer-directory.js';
import { redrawLogosKeptAsUploaded } from './usecases/business-profile.js';
import { DEFAULT_PAYER_EMAILS_PER_DAY, deletePayerEmailCountsBefore } from './store/payer-email-counts.js';
import { DEFAULT_INVITATIONS_PER_DAY, deleteInvitationCountsBefore } from './store/invitation-counts.js';

/** How long after listening the validators not yet used are compiled in the background (see warmUp). */
const VALIDATOR_WARM_UP_DELAY_MS = 1_000;

export interface StartOptions {
  databaseUrl: string;
  /** PostgreSQL's statement timeout and pool size. */
  database?: DatabaseOptions;
  port: number;
  host: string;
  publicUrl?: string | undefined;
  /** The card-form acquirer of businesses on the sandbox; the sandbox unless a test supplies another. */
  sandbox?: CardFormAcquirer;
  /** Where Stripe's SDK sends requests for businesses on Stripe: Stripe itself unless set (a stand-in, in tests). */
  stripeApiUrl?: string | undefined;
  mail?: Partial<MailSettings>;
  outbox?: Partial<OutboxConfig>;
  rateLimit?: Partial<RateLimitConfig>;
  /** How often links past their expires_at are marked expired and announced (60 s unless given). */
  expirySweepMs?: number;
  /**
   * How often what a stopped process left pending is settled, and how long a payment or refund must
   * have waited first (usecases/pending-sweep.ts); every minute, after 15 minutes, unless given.
   */
  pendingSweep?: { everyMs?: number; graceMs?: number };
  /** How long a key lookup is reused; 0 looks every key up on every request. */
  apiKeyCacheMs?: number;
  migrateOnStart?: boolean;
  /** Structured logs; JSON lines on stdout at `info` unless given. */
  logger?: Logger;
  /** How long clients have to send their requests. */
  http?: Partial<HttpTimeouts>;
  /** How much of a body answered unread is read before the connection closes (DEFAULT_LINGER for what is not given). */
  linger?: Partial<LingerLimits>;
  /** SECRETS_KEY, or the key file (next to the SQLite file unless named); required on PostgreSQL. */
  secrets?: SecretsSettings;
  /** Attempts on the payer forms; DEFAULT_PAGE_LIMITS for what is not given. */
  pageLimits?: Partial<PageLimits>;
  /** Posts to the acquirers' notification addresses per client address; DEFAULT_NOTIFICATION_LIMITS for what is not given. */
  notificationLimits?: Partial<NotificationLimits>;
  /** Proxies whose X-Forwarded-For entries are trusted for the client's address; 0 unless given. */
  trustProxyHops?: number;
  /** How webhook hosts are resolved; the system resolver unless a test stubs it. */
  resolve?: Resolver;
  /** The merchant console's build served at /console; console/dist unless a test gives another. */
  consoleDir?: string;
  /** Payer e-mails a business's API calls may have sent per UTC day (PAYER_EMAILS_PER_DAY); 1,000 unless given. */
  payerEmailsPerDay?: number;
  /** Invitations a business may send per UTC day (INVITATIONS_PER_DAY); 100 unless given. */
  invitationsPerDay?: number;
  /** How long after listening the validators no request has needed yet are compiled (VALIDATOR_WARM_UP_DELAY_MS unless given). */
  validatorWarmUpMs?: number;
  /** Days audit events are kept (AUDIT_RETENTION_DAYS); 400 unless given. */
  auditRetentionDays?: number;
  /** Members' sessions: idle timeout and absolute lifetime (DEFAULT_SESSION_SETTINGS for what is not given). */
  sessions?: Partial<SessionSettings>;
  /** Failed attempts at members' secrets per account from an address, per address and per account (DEFAULT_SIGN_IN_LIMITS for what is not given). */
  signInLimits?: Partial<SignInLimits>;
  /** Password resets by e-mail: limits and how long a link works (DEFAULT_PASSWORD_RESETS for what is not given). */
  passwordResets?: Partial<PasswordResetSettings>;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:41234. */
  url: string;
  publicUrl: string;
  db: Database;
  server: Server;
  logger: Logger;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Seals secrets at rest and derives purpose keys (server/secrets/). */
  secretsKey: MasterKey;
  /** Present when this instance delivers the outbox. */
  worker: OutboxWorker | undefined;
  /** What the use cases run with (the database, each business's acquirer, the outbox signal). */
  context: UseCaseContext;
  /**
   * Graceful stop: /ready turns 503, the server stops accepting and finishes the requests under way,
   * the worker finishes its deliveries, then the database closes.
   */
  close(): Promise<void>;
}

/** The ids a reply names as what it made: `data._id` (or `data.id`) of a success. */
function createdIds(reply: KeptReply): string[] {
  if (reply.status < 200 || reply.status >= 300) return [];
  const data = (reply.body as { data?: unknown } | undefined)?.data;
  if (typeof data !== 'object' || data === null) return [];
  const id = (data as { _id?: unknown; id?: unknown })._id ?? (data as { id?: unknown }).id;
  return typeof id === 'string' ? [id] : [];
}

function auditEntry(trail: AuditTrail, status: number, targets: string[] = [], reason?: string): AuditEventInput {
  return {
    ...trail.draft,
    targetIds: [...trail.draft.targetIds, ...targets],
    outcome: outcomeOf(status),
    status,
    reason: reason ?? null,
    details: (trail.details as AuditDetails | undefined) ?? null,
  };
}

/**
 * The request's use-case context inside the transaction `tx` that commits its change: its audit
 * notes go to the trail, and a change to what keys may do is announced again once that commits
 * (announced at once as well, it could be undone by a lookup made before the commit).
 */
function inTransaction(ctx: UseCaseContext, tx: Executor, trail: AuditTrail, afterCommit: (() => void)[]): UseCaseContext {
  return {
    ...ctx,
    db: tx,
    audit: { note: (details) => void (trail.details = { ...trail.details, ...details }) },
    apiKeys: {
      changed() {
        ctx.apiKeys?.changed();
        afterCommit.push(() => ctx.apiKeys?.changed());
      },
    },
  };
}

/** Records the trail's entry in `tx` with the reply it commits with, once per request. */
async function recordIn(tx: Executor, trail: AuditTrail, reply: KeptReply): Promise<void> {
  if (trail.pendingId) return;
  trail.pendingId = await recordAuditEvent(tx, auditEntry(trail, reply.status, createdIds(reply), reply.status >= 400 ? reasonOf(reply.body) : undefined));
}

/** `keep` that also records the audit entry, in the first phase that keeps an answer. */
function keepingAudit(trail: AuditTrail, keep: KeepReply | undefined): KeepReply {
  return async (tx, reply) => {
    await keep?.(tx, reply);
    await recordIn(tx, trail, reply);
  };
}

/**
 * Where handlers get their use-case context: the root one for reads; for writes, one whose executor
 * is the transaction that commits the change, its audit entry and, under an Idempotency-Key, the
 * reply kept for retries (or, for an operation run in atomic phases, the root one with `keep`, which
 * each phase's transaction calls: the first records the entry).
 */
export function scopesOver(ctx: UseCaseContext): Scopes<UseCaseContext> {
  return {
    plain: ctx,
    async idempotent(request, trail, work) {
      const afterCommit: (() => void)[] = [];
      const audited = (scope: UseCaseContext) =>
        request.atomicPhases
          ? work({ ...scope, keep: keepingAudit(trail, scope.keep), audit: inTransaction(ctx, scope.db, trail, afterCommit).audit })
          : work(inTransaction(scope, scope.db, trail, afterCommit)).then(async (reply) => (await recordIn(scope.db, trail, reply), reply));
      const outcome = await runIdempotent(ctx, request, audited, (error) => toErrorResponse(error)).finally(() => afterCommit.forEach((signal) => signal()));
      switch (outcome.kind) {
        case 'ran':
          return outcome.reply;
        case 'replay':
          return { ...outcome.reply, headers: { 'Idempotent-Replayed': 'true' } };
        case 'mismatch':
          throw new ValidationError({ idempotency_key: ['This idempotency key was already used with a different request.'] });
        case 'in_flight':
          throw new ConflictError('A request with this Idempotency-Key is still being processed. Retry it later.');
      }
    },
    async write(trail, atomicPhases, work) {
      if (atomicPhases) return work({ ...ctx, keep: keepingAudit(trail, undefined), audit: inTransaction(ctx, ctx.db, trail, []).audit });
      const afterCommit: (() => void)[] = [];
      const reply = await ctx.db
        .transaction(async (tx) => {
          const answer = await work(inTransaction(ctx, tx, trail, afterCommit));
          await recordIn(tx, trail, answer);
          return answer;
        })
        .finally(() => afterCommit.forEach((signal) => signal()));
      trail.recordedId = trail.pendingId;
      // Whatever the work enqueued is committed only now.
      ctx.outbox.nudge();
      return reply;
    },
    async settle(trail, status, reason) {
      if (trail.recordedId) return;
      // Recorded in a transaction that may since have been rolled back (a reply not kept, a phase whose commit failed).
      if (trail.pendingId && (await auditEventExists(ctx.db, trail.pendingId))) {
        trail.recordedId = trail.pendingId;
        return;
      }
      trail.recordedId = await recordAuditEvent(ctx.db, auditEntry(trail, status, [], reason));
    },
  };
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const db = openDatabase(options.databaseUrl, options.database);
  try {
    const logger = options.logger ?? createLogger();
    const secrets = loadMasterKey(options.databaseUrl, options.secrets);
    if (secrets.created)
      logger.warn(
        { file: secrets.file, key_id: secrets.key.id },
        `created the secrets key file ${secrets.file}: back it up with the database, whose webhook keys cannot be opened without it`,
      );
    if (secrets.looseMode) logger.warn({ file: secrets.file }, `the secrets key file ${secrets.file} can be read by other users: chmod 600 it`);
    if (options.migrateOnStart ?? true) await db.migrate();
    const sealed = await sealLegacyWebhookSecrets(options.databaseUrl, secrets.key);
    if (sealed > 0) logger.info({ sealed, key_id: secrets.key.id }, `sealed ${sealed} webhook key(s) stored in clear by an earlier version`);
    // What the payer pages sign, with a key of their own derived from the secrets key (shared by every instance).
    const keys = pageKeys(secrets.key.derive('page-signing'));
    const contract = await loadContract();
    const server = createHttpServer({ ...DEFAULT_HTTP_TIMEOUTS, ...options.http });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const localHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
    const url = `http://${localHost}:${port}`;
    const publicUrl = options.publicUrl ?? url;
    const outboxConfig = { ...DEFAULT_OUTBOX, ...options.outbox };
    const mailer = createMailer({ smtpUrl: undefined, from: 'Payment Collection Service <no-reply@localhost>', mailDir: './data/mail', ...options.mail });
    const webhookPolicy = {
      allowPrivate: outboxConfig.webhookAllowPrivate,
      allowedPorts: outboxConfig.webhookAllowedPorts,
      serviceUrls: [url, publicUrl],
      resolve: options.resolve,
    };
    const deliverers = createDeliverers(db, mailer, {
      webhookTimeoutMs: outboxConfig.webhookTimeoutMs,
      webhookPolicy,
      breaker: outboxConfig.breaker,
      logger,
      secretsKey: secrets.key,
    });
    const worker = outboxConfig.worker ? new OutboxWorker(db, deliverers, { ...outboxConfig, logger }) : undefined;
    const rateLimit = { ...DEFAULT_RATE_LIMIT, ...options.rateLimit };
    const limiter = createRateLimiter(db, rateLimit);
    const passwordResets = { ...DEFAULT_PASSWORD_RESETS, ...options.passwordResets };
    const callers = new CallerCache(db, options.apiKeyCacheMs ?? DEFAULT_CALLER_CACHE_MS, (error) =>
      logger.warn({ err: error }, 'noting the last use of an API key failed'),
    );
    const keyChanges = rateLimit.redisUrl
      ? redisKeyChangeBroadcast(
          rateLimit.redisUrl,
          () => callers.forget(),
          (error) => logger.warn({ err: error }, 'telling other instances of a change to API keys failed'),
        )
      : NO_BROADCAST;
    const ctx: UseCaseContext = {
      db,
      publicUrl,
      acquirers: new AcquirerDirectory(db, secrets.key, {
        sandbox: options.sandbox ?? new SandboxAcquirer(),
        stripeApi: options.stripeApiUrl ? stripeApiAddress(options.stripeApiUrl) : undefined,
        publicUrl,
      }),
      outbox: { nudge: () => worker?.nudge() },
      webhooks: { policy: webhookPolicy, log: logger },
      secretsKey: secrets.key,
      payerEmailsPerDay: options.payerEmailsPerDay ?? DEFAULT_PAYER_EMAILS_PER_DAY,
      invitationsPerDay: options.invitationsPerDay ?? DEFAULT_INVITATIONS_PER_DAY,
      auth: {
        sessions: { ...DEFAULT_SESSION_SETTINGS, ...options.sessions },
        throttle: new SecretAttemptLimiter(limiter, db, { ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits }),
        resets: new PasswordResetLimiter(limiter, passwordResets),
        resetLinkMs: passwordResets.linkMinutes * 60_000,
      },
      apiKeys: {
        changed() {
          callers.forget();
          keyChanges.announce();
        },
      },
    };
    const handlers = {
      ...tokenizationHandlers,
      ...openPaymentLinkHandlers,
      ...paymentLinkHandlers,
      ...paymentHandlers,
      ...reportHandlers,
      ...eventHandlers,
      ...webhookEndpointHandlers,
      ...redirectSigningKeyHandlers,
      ...apiKeyHandlers,
      ...auditEventHandlers,
      ...authHandlers,
      ...passwordResetHandlers,
      ...teamHandlers,
      ...businessHandlers,
    } satisfies Handlers<UseCaseContext>;
    let draining = false;
    const pageDeps = {
      ...ctx,
      pageKeys: keys,
      pageLimiter: new PageLimiter(limiter, { ...DEFAULT_PAGE_LIMITS, ...options.pageLimits }, keys.cardFingerprint),
    };
    const payerPages = pageRoutes(pageDeps);
    const merchantConsole = consoleRoutes({ root: options.consoleDir ?? CONSOLE_DIST_PATH });
    const acquirers = acquirerRoutes({
      ...ctx,
      notificationLimiter: new NotificationLimiter(limiter, { ...DEFAULT_NOTIFICATION_LIMITS, ...options.notificationLimits }),
    });
    const app = createHttpApp({
      contract,
      handlers,
      scopes: scopesOver(ctx),
      pages: (koa, next) => merchantConsole(koa, () => payerPages(koa, () => acquirers(koa, next))),
      trustProxyHops: options.trustProxyHops ?? 0,
      linger: { ...DEFAULT_LINGER, ...options.linger },
      findCaller: (key) => callers.find(key),
      findSession: (token) => sessionCaller(ctx, token),
      publicUrl,
      limiter,
      logger,
      ready: () => db.ping(2_000),
      draining: () => draining,
    });
    server.on('request', app.callback());
    const warming = new AbortController();
    const warmingFrom = performance.now();
    const libraries: LibraryLoaders = {
      'csv-stringify': loadCsvStringify,
      qrcode: loadQrCode,
      otpauth: loadTotp,
      '@koa/send': loadSend,
      ...(worker && { undici: loadUndici, standardwebhooks: loadSigner }),
      ...(options.mail?.smtpUrl && { nodemailer: loadNodemailer }),
    };
    void warmUp(contract, { afterMs: options.validatorWarmUpMs ?? VALIDATOR_WARM_UP_DELAY_MS, signal: warming.signal })
      .then(() =>
        loadLibraries(libraries, {
          signal: warming.signal,
          failed: (name, error) => logger.warn({ err: error, library: name }, 'a library could not be loaded ahead of its first use'),
        }),
      )
      .then((loaded) => {
        // Said so an operator (and the bench, which measures a warm service as it measures warm peers) knows when requests stop sharing the loop with it.
        if (!warming.signal.aborted)
          logger.info({ duration_ms: Math.round(performance.now() - warmingFrom), libraries_loaded: loaded }, 'request validators compiled');
      })
      .catch((error: unknown) => logger.error({ err: error }, 'compiling the request validators failed'));
    // Logos kept as uploaded by an earlier version are not served until drawn again, off the start's path.
    void redrawLogosKeptAsUploaded(ctx, (fields, message) => logger.warn(fields, message))
      .then((done) => {
        if (done.redrawn + done.removed > 0) logger.info(done, 'drew again the logos an earlier version kept as uploaded');
      })
      .catch((error: unknown) => {
        if (!draining) logger.error({ err: error }, 'drawing again the logos kept as uploaded failed');
      });
    worker?.start();
    // Expired Idempotency-Key records, the payer e-mail counts of days gone by, audit events past
    // their retention, sign-in addresses no longer known and password resets long expired are dead
    // weight; any instance may sweep them (the audit log in batches).
    const housekeeping = setInterval(
      () =>
        void Promise.all([
          deleteExpiredKeys(db),
          deletePayerEmailCountsBefore(db, new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)),
          deleteInvitationCountsBefore(db, new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)),
          sweepAuditEvents(ctx, options.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS),
          forgetSignInAddressesBefore(db, new Date(Date.now() - KNOWN_CLIENT_DAYS * 86_400_000)),
          deleteResetsExpiredBefore(db, new Date(Date.now() - 86_400_000)),
        ]).catch((error: unknown) => logger.error({ err: error }, 'housekeeping failed')),
      10 * 60_000,
    );
    housekeeping.unref();
    // Several instances may sweep at once: each link is marked (and announced) by one guarded UPDATE.
    const expirySweep = setInterval(
      () => void expireDueLinks(ctx).catch((error: unknown) => logger.error({ err: error }, 'the expiry sweep failed')),
      options.expirySweepMs ?? 60_000,
    );
    expirySweep.unref();
    const pendingSweep = setInterval(
      () =>
        void settleStalePending(ctx, options.pendingSweep?.graceMs ?? 15 * 60_000)
          .then(({ chargesLeftUnanswered, ...swept }) => {
            if (swept.abandonedPayments + swept.settledRefunds + swept.settledPayments > 0) logger.info(swept, 'settled payments and refunds left pending');
            if (chargesLeftUnanswered.length > 0)
              logger.warn(
                { payment_ids: chargesLeftUnanswered },
                'charges the acquirer never answered stay pending: reconcile them with the acquirer by hand (the sweep no longer asks)',
              );
          })
          .catch((error: unknown) => logger.error({ err: error }, 'the pending sweep failed')),
      options.pendingSweep?.everyMs ?? 60_000,
    );
    pendingSweep.unref();
    return {
      url,
      publicUrl,
      db,
      server,
      logger,
      mailer,
      limiter,
      secretsKey: secrets.key,
      worker,
      context: ctx,
      async close() {
        draining = true;
        warming.abort();
        clearInterval(housekeeping);
        clearInterval(expirySweep);
        clearInterval(pendingSweep);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        await worker?.stop();
        await limiter.close();
        await keyChanges.close();
        mailer.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
