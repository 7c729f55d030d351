// Starts the service on a database: migrations first, then the HTTP server and the outbox worker.
// Used by main.ts and by the tests, which start the real app on 127.0.0.1:0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { DEFAULT_OUTBOX, DEFAULT_RATE_LIMIT, type MailSettings, type OutboxConfig } from './config.js';
import { createApp } from './http/app.js';
import { CallerCache, DEFAULT_CALLER_CACHE_MS } from './http/callers.js';
import { createRateLimiter, type RateLimitConfig, type RateLimiter } from './http/rate-limit.js';
import { createDeliverers } from './outbox/deliverers.js';
import { createMailer, type Mailer } from './outbox/mailer.js';
import { OutboxWorker } from './outbox/worker.js';
import type { PaymentProvider } from './payments/provider.js';
import { SandboxProvider } from './payments/sandbox.js';
import { DEFAULT_PAGE_LIMITS, PageLimiter, type PageLimits } from './pages/limits.js';
import { pageKeys, pageSigningKey } from './pages/signing.js';
import { connect, type Db } from './store/db.js';
import { deleteExpiredKeys } from './store/idempotency.js';
import { migrateLatest } from './store/migrate.js';
import { createLogger, type Logger } from './logger.js';

export interface StartOptions {
  databaseUrl: string;
  port: number;
  host: string;
  publicUrl?: string | undefined;
  /** The acquirer; the sandbox unless a test or an adapter supplies another. */
  provider?: PaymentProvider;
  mail?: Partial<MailSettings>;
  outbox?: Partial<OutboxConfig>;
  rateLimit?: Partial<RateLimitConfig>;
  /** How long a key lookup is reused; 0 looks every key up on every request. */
  apiKeyCacheMs?: number;
  migrateOnStart?: boolean;
  /** Structured logs; JSON lines on stdout at `info` unless given. */
  logger?: Logger;
  /** PAGE_SIGNING_SECRET; without it the key file (`pageSigningKeyFile`, ./data/page-signing.key) is used. */
  pageSigningSecret?: string | undefined;
  pageSigningKeyFile?: string;
  /** Attempts on the payer forms; DEFAULT_PAGE_LIMITS for what is not given. */
  pageLimits?: Partial<PageLimits>;
  /** Proxies whose X-Forwarded-For entries are trusted for the client's address; 0 unless given. */
  trustProxyHops?: number;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:41234. */
  url: string;
  publicUrl: string;
  db: Db;
  server: Server;
  logger: Logger;
  mailer: Mailer;
  limiter: RateLimiter;
  /** Present when this instance delivers the outbox. */
  worker: OutboxWorker | undefined;
  /**
   * Graceful stop: /ready turns 503, the server stops accepting and finishes the requests under way,
   * the worker finishes its deliveries, then the pool closes.
   */
  close(): Promise<void>;
}

/** What Node reports about a request it could not read, as the status line and message we answer with. */
const CLIENT_ERRORS: Record<string, [string, string]> = {
  HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'The request line and headers must not be larger than 16 KiB.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'The request did not arrive in time.'],
};
const NOT_HTTP: [string, string] = ['400 Bad Request', 'The request is not valid HTTP.'];

/**
 * Requests Node cannot parse (or that never finish arriving) never reach Koa: Node would answer them
 * with a bare status line and no body. They get the API's JSON error body instead.
 */
export function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable || error.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? NOT_HTTP;
  const body = JSON.stringify({ message });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const db = connect(options.databaseUrl);
  try {
    if (options.migrateOnStart ?? true) await migrateLatest(db);
    const logger = options.logger ?? createLogger();
    const keys = pageKeys(pageSigningKey({ secret: options.pageSigningSecret, keyFile: options.pageSigningKeyFile }));
    if (!options.pageSigningSecret && !options.databaseUrl.startsWith('sqlite:')) {
      logger.warn('PAGE_SIGNING_SECRET is not set: this instance signs payer pages with its own key file, so instances on other machines cannot read what it signs; set the same secret on every instance');
    }
    const server = createServer();
    server.on('clientError', answerMalformedRequest);
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
    const deliverers = createDeliverers(db, mailer, { webhookTimeoutMs: outboxConfig.webhookTimeoutMs, serviceUrls: [url, publicUrl] });
    const worker = outboxConfig.worker ? new OutboxWorker(db, deliverers, { ...outboxConfig, logger }) : undefined;
    const limiter = createRateLimiter(db, { ...DEFAULT_RATE_LIMIT, ...options.rateLimit });
    let draining = false;
    const app = await createApp({
      db,
      publicUrl,
      provider: options.provider ?? new SandboxProvider(),
      outbox: { nudge: () => worker?.nudge() },
      limiter,
      pageKeys: keys,
      pageLimiter: new PageLimiter(limiter, { ...DEFAULT_PAGE_LIMITS, ...options.pageLimits }, keys.cardFingerprint),
      trustProxyHops: options.trustProxyHops ?? 0,
      callers: new CallerCache(db, options.apiKeyCacheMs ?? DEFAULT_CALLER_CACHE_MS),
      logger,
      draining: () => draining,
    });
    server.on('request', app.callback());
    worker?.start();
    // Expired Idempotency-Key records are dead weight; any instance may sweep them.
    const housekeeping = setInterval(() => void deleteExpiredKeys(db).catch((error: unknown) => logger.error({ err: error }, 'housekeeping failed')), 10 * 60_000);
    housekeeping.unref();
    return {
      url,
      publicUrl,
      db,
      server,
      logger,
      mailer,
      limiter,
      worker,
      async close() {
        draining = true;
        clearInterval(housekeeping);
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        await worker?.stop();
        await limiter.close();
        mailer.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
