import { readFileSync } from 'node:fs';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './http/server.js';
import type { RateLimitConfig } from './rate-limits/backends.js';
import { LOG_LEVELS, type LogLevel } from './logger.js';
import type { BreakerSettings } from './outbox/circuit-breaker.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './outbox/schedule.js';
import { DEFAULT_PAGE_LIMITS, type PageLimits } from './rate-limits/payer-forms.js';
import { DEFAULT_NOTIFICATION_LIMITS, type NotificationLimits } from './rate-limits/acquirer-notifications.js';
import type { BackupSchedule } from './backup/recorded.js';
import { POSTGRES_NEEDS_KEY, type SecretsSettings } from './secrets/key-source.js';
import { MasterKey, MasterKeyFormatError, parseMasterKey } from './secrets/master-key.js';
import { DEFAULT_RETENTION, type RetentionOptions } from './outbox/worker.js';
import { DEFAULT_WEBHOOK_PORTS, type PortRange } from './outbox/webhook-target.js';
import { DEFAULT_PAYER_EMAILS_PER_DAY } from './store/payer-email-counts.js';
import { DEFAULT_INVITATIONS_PER_DAY } from './store/invitation-counts.js';
import { DEFAULT_AUDIT_RETENTION_DAYS } from './store/audit-events.js';
import { DEFAULT_SESSION_SETTINGS, type SessionSettings } from './domain/sessions.js';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from './rate-limits/secret-attempts.js';
import { DEFAULT_PASSWORD_RESETS, type PasswordResetSettings } from './rate-limits/password-resets.js';
import { DEFAULT_DATABASE_URL, DEFAULT_STATEMENT_TIMEOUT_MS, type DatabaseOptions } from './store/database.js';
import { parseHolidayFile, parseHolidayList, parseWeekend } from './domain/business-days.js';
import { DEFAULT_CALENDAR_SETTINGS, type CalendarSettings } from './domain/malaysian-holidays.js';
import { DEFAULT_SANDBOX_SETTLEMENT, parseFeeSchedule, type SandboxSettlementSettings } from './domain/settlement-fees.js';
import { SettingError } from './domain/setting-error.js';
import { DEFAULT_DEPOSIT_GRACE_DAYS } from './domain/deposit-matching.js';

export interface OutboxConfig {
  /** Off for API-only instances; some instance on the database must run a worker. */
  worker: boolean;
  pollMs: number;
  leaseMs: number;
  /** Deliveries in flight at once per instance. */
  concurrency: number;
  /** Deliveries in flight at once per instance for one business on one channel. */
  perBusinessConcurrency: number;
  retry: RetryPolicy;
  webhookTimeoutMs: number;
  /** Loopback and private-network webhook receivers (development, the test suite). */
  webhookAllowPrivate: boolean;
  /** The ports webhook URLs may name (80, 443 and 8443 unless widened). */
  webhookAllowedPorts: readonly PortRange[];
  breaker: BreakerSettings;
  retention: RetentionOptions;
}

export interface MailSettings {
  smtpUrl: string | undefined;
  from: string;
  mailDir: string;
}

export interface SettlementConfig {
  /** The business days settlement counts in: the weekend, the built-in national holidays, the configured ones. */
  calendar: CalendarSettings;
  /** The sandbox acquirer's fees and when a payment's money is available. */
  sandbox: SandboxSettlementSettings;
  /** Business days after a payout's arrival its deposit may take to show on a bank statement before it is mismatched. */
  depositGraceDays: number;
}

export interface Config {
  databaseUrl: string;
  database: Required<DatabaseOptions>;
  port: number;
  host: string;
  /** Base of the URLs we hand out; defaults to the server's own address once it listens. */
  publicUrl: string | undefined;
  mail: MailSettings;
  outbox: OutboxConfig;
  rateLimit: RateLimitConfig;
  /** Off when migrations run as a separate step (`npm run migrate`) before instances start. */
  migrateOnStart: boolean;
  /** How long SIGTERM waits for in-flight requests and deliveries before the process exits anyway. */
  shutdownTimeoutMs: number;
  sandboxLatencyMs: number;
  /** Where Stripe's SDK sends requests; Stripe's own API unless set (the local stand-in, for trying it out). */
  stripeApiUrl: string | undefined;
  /** How long a key lookup is reused: a revoked key keeps working at most this long. */
  apiKeyCacheMs: number;
  logLevel: LogLevel;
  http: HttpTimeouts;
  /** The master key that seals webhook keys at rest (see server/secrets/key-source.ts). */
  secrets: SecretsSettings;
  /** Attempts on the payer forms per client address, link and card. */
  pageLimits: PageLimits;
  /** Reverse proxies in front of the service that append the client's address to X-Forwarded-For. */
  trustProxyHops: number;
  /** Payer e-mails (payment requests) a business's API calls may have the service send per UTC day. */
  payerEmailsPerDay: number;
  /** Invitations to the team a business may send per UTC day (each is an e-mail to an address of its choosing). */
  invitationsPerDay: number;
  /** How many days audit events are kept before the sweep deletes them. */
  auditRetentionDays: number;
  /** Posts to the acquirers' notification addresses (POST /stripe/webhooks/{business}) per client address. */
  notificationLimits: NotificationLimits;
  /** Members' sessions: idle timeout and absolute lifetime. */
  sessions: SessionSettings;
  /** Failed attempts at members' secrets allowed per account from an address, per address and per account, per window. */
  signInLimits: SignInLimits;
  /** Password resets by e-mail: requests per account and per address, and how long a link works. */
  passwordResets: PasswordResetSettings;
  settlement: SettlementConfig;
  /** GET /metrics for Prometheus: off without a token; on a port of its own when one is given. */
  metrics: MetricsSettings;
  /** Scheduled backups (BACKUP_DIR), made and verified by one instance of several; none when BACKUP_DIR is unset. */
  backup: BackupSchedule | undefined;
}

export interface MetricsSettings {
  /** METRICS_TOKEN: the bearer token a scrape must send; no /metrics without it. */
  token: string | undefined;
  /** METRICS_PORT: where /metrics listens alone (on HOST), off the service's own port. */
  port: number | undefined;
}

/** A token short enough to guess is refused, as a password would be. */
const METRICS_TOKEN_MIN_LENGTH = 16;

function metricsSettings(env: NodeJS.ProcessEnv, servicePort: number): MetricsSettings {
  const token = env.METRICS_TOKEN || undefined;
  if (token !== undefined && (token.length < METRICS_TOKEN_MIN_LENGTH || token.length > 512 || /\s/.test(token)))
    throw new ConfigError(`METRICS_TOKEN must be ${METRICS_TOKEN_MIN_LENGTH} to 512 characters without spaces`);
  const port = optionalInteger(env, 'METRICS_PORT', 1, 65535);
  if (port !== undefined && !token) throw new ConfigError('METRICS_PORT needs METRICS_TOKEN');
  if (port !== undefined && port === servicePort) throw new ConfigError('METRICS_PORT must differ from PORT');
  return { token, port };
}

export const DEFAULT_RATE_LIMIT: RateLimitConfig = { perSecond: 100, store: 'auto', redisUrl: undefined };

export class ConfigError extends Error {}

export const DEFAULT_OUTBOX: OutboxConfig = {
  worker: true,
  pollMs: 1_000,
  leaseMs: 60_000,
  concurrency: 16,
  perBusinessConcurrency: 4,
  retry: DEFAULT_RETRY_POLICY,
  webhookTimeoutMs: 10_000,
  webhookAllowPrivate: false,
  webhookAllowedPorts: DEFAULT_WEBHOOK_PORTS,
  breaker: { threshold: 5, coolDownMs: 60_000 },
  retention: DEFAULT_RETENTION,
};

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (!text) return fallback;
  const value = Number(text);
  if (!/^[0-9]+$/.test(text) || value < min || value > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return value;
}

/** An integer setting that is off when unset. */
function optionalInteger(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  return env[name] ? integer(env, name, min, min, max) : undefined;
}

function backupSchedule(env: NodeJS.ProcessEnv): BackupSchedule | undefined {
  const everyMs = integer(env, 'BACKUP_INTERVAL_HOURS', 24, 1, 24 * 31) * 3_600_000;
  const keep = integer(env, 'BACKUP_KEEP', 7, 1, 1_000);
  const passphrase = env.BACKUP_PASSPHRASE || undefined;
  if (passphrase && passphrase.length < 8) throw new ConfigError('BACKUP_PASSPHRASE must be at least 8 characters');
  return env.BACKUP_DIR ? { dir: env.BACKUP_DIR, everyMs, keep, passphrase } : undefined;
}

function logLevel(env: NodeJS.ProcessEnv): LogLevel {
  const text = env.LOG_LEVEL?.toLowerCase() || 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(text))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(env.LOG_LEVEL)}`);
  return text as LogLevel;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const text = env[name]?.toLowerCase();
  if (!text) return fallback;
  if (['1', 'true', 'on', 'yes'].includes(text)) return true;
  if (['0', 'false', 'off', 'no'].includes(text)) return false;
  throw new ConfigError(`${name} must be on or off, got ${JSON.stringify(env[name])}`);
}

function portRanges(env: NodeJS.ProcessEnv, name: string, fallback: readonly PortRange[]): readonly PortRange[] {
  const text = env[name]?.trim();
  if (!text) return fallback;
  const problem = `${name} must be ports from 1 to 65535 and ranges of them separated by commas (e.g. 443,8000-8999), got ${JSON.stringify(env[name])}`;
  return text.split(',').map((part): PortRange => {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part.trim());
    if (!match) throw new ConfigError(problem);
    const [from, to] = [Number(match[1]), Number(match[2] ?? match[1])];
    if (from < 1 || to > 65535 || from > to) throw new ConfigError(problem);
    return [from, to];
  });
}

/** A setting a domain rule parses; what it finds wrong is put under the variable's name. */
function setting<T>(env: NodeJS.ProcessEnv, name: string, fallback: T, parse: (text: string) => T): T {
  const text = env[name]?.trim();
  if (!text) return fallback;
  try {
    return parse(text);
  } catch (error) {
    if (error instanceof SettingError) throw new ConfigError(`${name}: ${error.message}`);
    throw error;
  }
}

/** A holiday file is a few lines a year: one much larger is not the file meant. */
const MAX_HOLIDAY_FILE_BYTES = 1024 * 1024;

function holidayFile(path: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingError(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (Buffer.byteLength(text) > MAX_HOLIDAY_FILE_BYTES) throw new SettingError(`${path} is larger than ${MAX_HOLIDAY_FILE_BYTES} bytes`);
  return text;
}

function settlement(env: NodeJS.ProcessEnv): SettlementConfig {
  return {
    calendar: {
      weekend: setting(env, 'SETTLEMENT_WEEKEND', DEFAULT_CALENDAR_SETTINGS.weekend, parseWeekend),
      holidays: [
        ...setting(env, 'SETTLEMENT_HOLIDAYS', [], parseHolidayList),
        ...setting(env, 'SETTLEMENT_HOLIDAYS_FILE', [], (path) => parseHolidayFile(holidayFile(path))),
      ],
      builtIn: flag(env, 'SETTLEMENT_BUILT_IN_HOLIDAYS', DEFAULT_CALENDAR_SETTINGS.builtIn),
    },
    sandbox: {
      fees: setting(env, 'SANDBOX_FEES', DEFAULT_SANDBOX_SETTLEMENT.fees, parseFeeSchedule),
      availableAfterDays: integer(env, 'SANDBOX_AVAILABLE_AFTER_DAYS', DEFAULT_SANDBOX_SETTLEMENT.availableAfterDays, 0, 30),
    },
    depositGraceDays: integer(env, 'PAYOUT_DEPOSIT_GRACE_DAYS', DEFAULT_DEPOSIT_GRACE_DAYS, 1, 60),
  };
}

function absoluteUrl(env: NodeJS.ProcessEnv, name: string, scheme: 'http' | 'smtp'): string | undefined {
  const text = env[name];
  if (!text) return undefined;
  const problem = `${name} must be an absolute ${scheme}(s) URL, got ${JSON.stringify(text)}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(problem);
  }
  if (url.protocol !== `${scheme}:` && url.protocol !== `${scheme}s:`) throw new ConfigError(problem);
  let end = text.length;
  // A loop rather than /\/+$/, which is quadratic on a long run of slashes followed by anything else.
  while (end > 0 && text[end - 1] === '/') end -= 1;
  return text.slice(0, end);
}

function httpTimeouts(env: NodeJS.ProcessEnv): HttpTimeouts {
  const headersTimeoutMs = integer(env, 'HTTP_HEADERS_TIMEOUT_MS', DEFAULT_HTTP_TIMEOUTS.headersTimeoutMs, 100, 600_000);
  const requestTimeoutMs = integer(env, 'HTTP_REQUEST_TIMEOUT_MS', DEFAULT_HTTP_TIMEOUTS.requestTimeoutMs, 100, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) throw new ConfigError('HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS');
  return {
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer(env, 'HTTP_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_HTTP_TIMEOUTS.keepAliveTimeoutMs, 100, 600_000),
  };
}

function secrets(env: NodeJS.ProcessEnv, databaseUrl: string): SecretsSettings {
  const text = env.SECRETS_KEY;
  let key: MasterKey | undefined;
  if (text) {
    try {
      key = new MasterKey(parseMasterKey(text));
    } catch (error) {
      if (error instanceof MasterKeyFormatError) throw new ConfigError(`SECRETS_KEY ${error.message}`);
      throw error;
    }
  }
  if (!key && /^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError(POSTGRES_NEEDS_KEY);
  return { key, keyFile: env.SECRETS_KEY_FILE || undefined };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const leaseMs = integer(env, 'OUTBOX_LEASE_MS', DEFAULT_OUTBOX.leaseMs, 1_000, 3_600_000);
  const webhookTimeoutMs = integer(env, 'WEBHOOK_TIMEOUT_MS', DEFAULT_OUTBOX.webhookTimeoutMs, 100, 60_000);
  if (webhookTimeoutMs >= leaseMs) throw new ConfigError('WEBHOOK_TIMEOUT_MS must be shorter than OUTBOX_LEASE_MS, or two workers could deliver one entry');
  const concurrency = integer(env, 'OUTBOX_CONCURRENCY', DEFAULT_OUTBOX.concurrency, 1, 1_000);
  const perBusinessConcurrency = integer(env, 'OUTBOX_CONCURRENCY_PER_BUSINESS', Math.min(DEFAULT_OUTBOX.perBusinessConcurrency, concurrency), 1, 1_000);
  if (perBusinessConcurrency > concurrency) throw new ConfigError('OUTBOX_CONCURRENCY_PER_BUSINESS must not be larger than OUTBOX_CONCURRENCY');
  const store = env.RATE_LIMIT_STORE || 'auto';
  if (!['auto', 'memory', 'database', 'redis'].includes(store))
    throw new ConfigError(`RATE_LIMIT_STORE must be auto, memory, database or redis, got ${JSON.stringify(store)}`);
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) throw new ConfigError(`REDIS_URL must be a redis:// or rediss:// URL, got ${JSON.stringify(redisUrl)}`);
  if (store === 'redis' && !redisUrl) throw new ConfigError('RATE_LIMIT_STORE=redis needs REDIS_URL');
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const port = integer(env, 'PORT', 3000, 0, 65535);
  return {
    databaseUrl,
    database: {
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_STATEMENT_TIMEOUT_MS, 100, 3_600_000),
      poolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1_000),
    },
    port,
    host: env.HOST || '0.0.0.0',
    publicUrl: absoluteUrl(env, 'PUBLIC_URL', 'http'),
    mail: {
      smtpUrl: absoluteUrl(env, 'SMTP_URL', 'smtp'),
      from: env.MAIL_FROM || 'Payment Collection Service <no-reply@localhost>',
      mailDir: env.MAIL_DIR || './data/mail',
    },
    outbox: {
      worker: flag(env, 'OUTBOX_WORKER', DEFAULT_OUTBOX.worker),
      pollMs: integer(env, 'OUTBOX_POLL_MS', DEFAULT_OUTBOX.pollMs, 10, 600_000),
      leaseMs,
      concurrency,
      perBusinessConcurrency,
      retry: {
        baseMs: integer(env, 'OUTBOX_RETRY_BASE_MS', DEFAULT_OUTBOX.retry.baseMs, 1, 86_400_000),
        capMs: integer(env, 'OUTBOX_RETRY_CAP_MS', DEFAULT_OUTBOX.retry.capMs, 1, 7 * 86_400_000),
        maxAttempts: integer(env, 'OUTBOX_MAX_ATTEMPTS', DEFAULT_OUTBOX.retry.maxAttempts, 1, 100),
      },
      webhookTimeoutMs,
      webhookAllowPrivate: flag(env, 'WEBHOOK_ALLOW_PRIVATE', DEFAULT_OUTBOX.webhookAllowPrivate),
      webhookAllowedPorts: portRanges(env, 'WEBHOOK_ALLOWED_PORTS', DEFAULT_OUTBOX.webhookAllowedPorts),
      breaker: {
        threshold: integer(env, 'WEBHOOK_BREAKER_THRESHOLD', DEFAULT_OUTBOX.breaker.threshold, 1, 1_000),
        coolDownMs: integer(env, 'WEBHOOK_BREAKER_COOLDOWN_MS', DEFAULT_OUTBOX.breaker.coolDownMs, 1_000, 86_400_000),
      },
      retention: { ...DEFAULT_RETENTION, days: integer(env, 'OUTBOX_RETENTION_DAYS', DEFAULT_RETENTION.days, 0, 36_500) },
    },
    rateLimit: {
      perSecond: integer(env, 'RATE_LIMIT_PER_SECOND', DEFAULT_RATE_LIMIT.perSecond, 1, 1_000_000),
      store: store as RateLimitConfig['store'],
      redisUrl,
    },
    migrateOnStart: flag(env, 'MIGRATE_ON_START', true),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 30_000, 0, 600_000),
    sandboxLatencyMs: integer(env, 'SANDBOX_LATENCY_MS', 0, 0, 60_000),
    stripeApiUrl: absoluteUrl(env, 'STRIPE_API_URL', 'http'),
    apiKeyCacheMs: integer(env, 'API_KEY_CACHE_MS', 5_000, 0, 60_000),
    logLevel: logLevel(env),
    http: httpTimeouts(env),
    secrets: secrets(env, databaseUrl),
    pageLimits: {
      windowSeconds: integer(env, 'PAGE_RATE_LIMIT_WINDOW_SECONDS', DEFAULT_PAGE_LIMITS.windowSeconds, 1, 86_400),
      perAddress: integer(env, 'PAGE_RATE_LIMIT_PER_ADDRESS', DEFAULT_PAGE_LIMITS.perAddress, 1, 1_000_000),
      perLink: integer(env, 'PAGE_RATE_LIMIT_PER_LINK', DEFAULT_PAGE_LIMITS.perLink, 1, 1_000_000),
      perCard: integer(env, 'PAGE_RATE_LIMIT_PER_CARD', DEFAULT_PAGE_LIMITS.perCard, 1, 1_000_000),
      checkoutsPerAddress: integer(env, 'PAGE_RATE_LIMIT_CHECKOUTS_PER_ADDRESS', DEFAULT_PAGE_LIMITS.checkoutsPerAddress, 1, 1_000_000),
      openCheckoutsPerLink: integer(env, 'PAGE_RATE_LIMIT_OPEN_CHECKOUTS_PER_LINK', DEFAULT_PAGE_LIMITS.openCheckoutsPerLink, 1, 10_000),
    },
    trustProxyHops: integer(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
    payerEmailsPerDay: integer(env, 'PAYER_EMAILS_PER_DAY', DEFAULT_PAYER_EMAILS_PER_DAY, 0, 10_000_000),
    invitationsPerDay: integer(env, 'INVITATIONS_PER_DAY', DEFAULT_INVITATIONS_PER_DAY, 0, 100_000),
    auditRetentionDays: integer(env, 'AUDIT_RETENTION_DAYS', DEFAULT_AUDIT_RETENTION_DAYS, 1, 36_500),
    notificationLimits: {
      perAddress: integer(env, 'STRIPE_WEBHOOK_RATE_LIMIT_PER_ADDRESS', DEFAULT_NOTIFICATION_LIMITS.perAddress, 1, 1_000_000),
      windowSeconds: integer(env, 'STRIPE_WEBHOOK_RATE_LIMIT_WINDOW_SECONDS', DEFAULT_NOTIFICATION_LIMITS.windowSeconds, 1, 3_600),
    },
    sessions: {
      idleMs: integer(env, 'SESSION_IDLE_MINUTES', DEFAULT_SESSION_SETTINGS.idleMs / 60_000, 1, 24 * 60) * 60_000,
      lifetimeMs: integer(env, 'SESSION_LIFETIME_HOURS', DEFAULT_SESSION_SETTINGS.lifetimeMs / 3_600_000, 1, 24 * 30) * 3_600_000,
    },
    signInLimits: signInLimits(env),
    passwordResets: {
      perAccount: {
        limit: integer(env, 'PASSWORD_RESETS_PER_ACCOUNT', DEFAULT_PASSWORD_RESETS.perAccount.limit, 1, 1_000),
        seconds: DEFAULT_PASSWORD_RESETS.perAccount.seconds,
      },
      perAddress: {
        limit: integer(env, 'PASSWORD_RESETS_PER_ADDRESS', DEFAULT_PASSWORD_RESETS.perAddress.limit, 1, 1_000_000),
        seconds: DEFAULT_PASSWORD_RESETS.perAddress.seconds,
      },
      linkMinutes: integer(env, 'PASSWORD_RESET_LINK_MINUTES', DEFAULT_PASSWORD_RESETS.linkMinutes, 5, 24 * 60),
    },
    settlement: settlement(env),
    metrics: metricsSettings(env, port),
    backup: backupSchedule(env),
  };
}

function signInLimits(env: NodeJS.ProcessEnv): SignInLimits {
  const window = (limit: number, fallback: { seconds: number }) => ({ limit, seconds: fallback.seconds });
  const limits: SignInLimits = {
    perAccount: window(integer(env, 'LOGIN_FAILURES_PER_ACCOUNT', DEFAULT_SIGN_IN_LIMITS.perAccount.limit, 1, 1_000_000), DEFAULT_SIGN_IN_LIMITS.perAccount),
    perAddress: window(integer(env, 'LOGIN_FAILURES_PER_ADDRESS', DEFAULT_SIGN_IN_LIMITS.perAddress.limit, 1, 1_000_000), DEFAULT_SIGN_IN_LIMITS.perAddress),
    accountCeiling: window(
      integer(env, 'LOGIN_FAILURES_ACCOUNT_CEILING', DEFAULT_SIGN_IN_LIMITS.accountCeiling.limit, 1, 1_000_000),
      DEFAULT_SIGN_IN_LIMITS.accountCeiling,
    ),
    noticeAfter: integer(env, 'LOGIN_FAILURES_NOTICE_AFTER', DEFAULT_SIGN_IN_LIMITS.noticeAfter, 1, 1_000_000),
  };
  // A ceiling below the limit from one address would let a single client hold back every address the member has not signed in from yet.
  if (limits.accountCeiling.limit < limits.perAccount.limit)
    throw new ConfigError('LOGIN_FAILURES_ACCOUNT_CEILING must not be lower than LOGIN_FAILURES_PER_ACCOUNT');
  return limits;
}
