// `npm start`: the service on the configured database (embedded SQLite by default). Besides the JSON log
// lines on stdout, it tells the person at the terminal, in plain lines on stderr, where the console is and
// what the secrets key file it created is for; on a first start it prints the demo key and the owner's link.
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { SandboxAcquirer } from './acquirers/sandbox.js';
import { defaultKeyFile, SecretsKeyError } from './secrets/key-source.js';
import { startService } from './start.js';
import { issueKey } from './store/api-keys.js';
import { countBusinesses, findBusinessByName, findOrCreateBusiness } from './store/businesses.js';
import { countUsers } from './store/users.js';
import { createOwnerLink } from './usecases/members/accounts.js';

const DEMO_BUSINESS = 'Demo Business';

/** The key file this start reads or creates: on SQLite without SECRETS_KEY only. */
function keyFileOf(config: Config): string | undefined {
  return config.secrets.key ? undefined : (config.secrets.keyFile ?? defaultKeyFile(config.databaseUrl));
}

/** Writes what the logger still buffers, then exits. */
function exit(logger: Logger, code: number): void {
  logger.flush(() => process.exit(code));
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const keyFile = keyFileOf(config);
  const keyFileExisted = keyFile !== undefined && existsSync(keyFile);
  const service = await startService({ ...config, logger, sandbox: new SandboxAcquirer(config.sandboxLatencyMs) });

  if ((await countBusinesses(service.db)) === 0) {
    const business = await findOrCreateBusiness(service.db, DEMO_BUSINESS);
    const { key } = await issueKey(service.db, business.id);
    console.log(`No business existed, so "${DEMO_BUSINESS}" (business_id ${business.id}) was created. Its API key, shown only now:\n\n  ${key}\n`);
    console.log('Try it:\n');
    console.log(
      `  curl -s -X POST ${service.publicUrl}/api/payment-links -H 'Accept: application/json' -H 'Content-Type: application/json' ` +
        `-H 'Authorization: Bearer ${key}' -d '{"email":"payer@example.com","currency":"MYR","amount":1000,"title":"Invoice 1001"}'\n`,
    );
  }

  if ((await countUsers(service.db)) === 0) {
    const demo = await findBusinessByName(service.db, DEMO_BUSINESS);
    if (demo) {
      const link = await createOwnerLink(service.context, demo.id);
      console.log(`No one can sign in yet. Open this one-time link (valid 72 hours) to become the owner of "${DEMO_BUSINESS}":\n\n  ${link}\n`);
    } else {
      console.log('No one can sign in yet: npm run create-user -- --business <id> --email <e-mail> --role owner prints a one-time link.\n');
    }
  }

  // The demo key above is for the person at the terminal, printed once; from here on, JSON log lines.
  logger.info(
    {
      url: service.url,
      database: config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@'),
      api: `${service.publicUrl}/api`,
      console: `${service.publicUrl}/console`,
      reference: `${service.publicUrl}/docs`,
      contract: `${service.publicUrl}/openapi.yaml`,
      mail: service.mailer.describe,
      outbox_worker: Boolean(service.worker),
    },
    `Payment collection service listening on ${service.url}; the merchant console is at ${service.publicUrl}/console`,
  );
  // The same addresses in plain words: the log line above is for machines.
  console.error(`\nConsole:   ${service.publicUrl}/console`);
  console.error(`API:       ${service.publicUrl}/api`);
  console.error(`Reference: ${service.publicUrl}/docs\n`);
  if (keyFile && !keyFileExisted && existsSync(keyFile)) {
    console.error(
      `Created the secrets key file ${keyFile}. It holds the master key that seals the secrets this database keeps ` +
        '(webhook and redirect signing keys, Stripe keys, two-factor secrets, the answers kept for Idempotency-Keys) ' +
        'and signs what the payer pages sign. Back it up with the database: without it those secrets cannot be opened. ' +
        'To keep the key in a secret store instead, set SECRETS_KEY (PostgreSQL needs it).\n',
    );
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, `${signal}: finishing requests and deliveries under way, then exiting`);
    // A stuck request must not keep a stopping instance alive forever.
    const deadline = setTimeout(() => {
      logger.error(`shutdown did not finish within ${config.shutdownTimeoutMs} ms; exiting anyway`);
      exit(logger, 1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    service.close().then(
      () => {
        logger.info('stopped');
        exit(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(logger, 1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error instanceof ConfigError || error instanceof SecretsKeyError ? `Configuration error: ${error.message}` : error);
  process.exit(1);
});
