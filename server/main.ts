// `npm start`: the service on the configured database (embedded SQLite by default).
import { ConfigError, loadConfig } from './config.js';
import { SandboxProvider } from './payments/sandbox.js';
import { startService } from './start.js';
import { issueKey } from './store/api-keys.js';
import { countBusinesses, findOrCreateBusiness } from './store/businesses.js';

const DEMO_BUSINESS = 'Demo Business';

async function main(): Promise<void> {
  const config = loadConfig();
  const service = await startService({ ...config, provider: new SandboxProvider(config.sandboxLatencyMs) });

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

  // The banner comes last: once it is printed, everything above it (the demo key) is out too.
  console.log(`Payment collection service listening on ${service.url} (database: ${config.databaseUrl.replace(/\/\/[^@/]*@/, '//***@')})`);
  console.log(`API base: ${service.publicUrl}/api   Reference: ${service.publicUrl}/docs   Contract: ${service.publicUrl}/openapi.yaml`);
  console.log(`E-mail: ${service.mailer.describe}   Outbox worker: ${service.worker ? 'on' : 'off (OUTBOX_WORKER=off)'}`);

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing requests and deliveries under way, then exiting`);
    // A stuck request must not keep a stopping instance alive forever.
    const deadline = setTimeout(() => {
      console.error(`shutdown did not finish within ${config.shutdownTimeoutMs} ms; exiting anyway`);
      process.exit(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    service.close().then(
      () => {
        console.log('stopped');
        process.exit(0);
      },
      (error) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}

main().catch((error) => {
  console.error(error instanceof ConfigError ? `Configuration error: ${error.message}` : error);
  process.exit(1);
});
