// The test service (support/service.ts: a fresh database, businesses A and B with their keys, the
// suites' raised limits and stubbed name resolution) in a process of its own, for the edge suite
// (edges.test.ts): a request that stalls its event loop must not stall the test runner's, so that
// the suite notices, says so and stops, where a service in the runner's process would hang the run.
// It writes its log lines of level warn and above to stdout, then one line of JSON with what the
// suite needs, then `listening on <url>`; SIGTERM closes it (its database dropped), saying first how
// much CPU it used.
import { createLogger } from '../../server/logger.js';
import { startTestService } from '../support/service.js';

const t = await startTestService({ logger: createLogger({ level: 'warn', destination: process.stdout }) });
const tenant = (which: typeof t.a) => ({ key: which.key, businessId: which.business.id, name: which.business.name });
process.stdout.write(`${JSON.stringify({ edgeService: { url: t.url, databaseUrl: t.databaseUrl, dir: t.dir, a: tenant(t.a), b: tenant(t.b) } })}\n`);
process.stdout.write(`listening on ${t.url}\n`);
process.once('SIGTERM', () => {
  // What the service spent, for the suite's record of its cost.
  const { user, system } = process.cpuUsage();
  process.stdout.write(`edge service CPU: ${(user / 1e6).toFixed(1)} s user, ${(system / 1e6).toFixed(1)} s system\n`);
  void t.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
