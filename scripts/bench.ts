// `npm run bench [-- --quick] [--runs N] [--connections N] [--duration S] [--scale [--rows N] [--scale-only TEXT] | --scale-ratios] [--scale-on sqlite|postgres|both] [--contention] [--console]`
// Measures the hot paths (create, get and list payment links) of the real service on its embedded
// default against a bare Koa ceiling, on loopback, in the same run with the same load, and reports
// the ratio service/ceiling. The validated ceiling (bare Koa plus the service's routes and
// validation, no other work) shows what the contract's validation alone takes; two peer servers
// (express + express-openapi-validator, fastify with schemas from openapi.yaml) do the service's own
// work behind the stacks a team would pick instead. Writes bench/results.json; the last line is
//   bench create=<ratio> get=<ratio> list=<ratio> vs-fastify create=<ratio> get=<ratio> list=<ratio>
// (the service of the ceiling, then the service of the fastify peer, each the best of the runs); the line
// before it, `bench metrics create=<ratio> get=<ratio> list=<ratio>`, is the service with METRICS_TOKEN
// set (its metrics on) of the same service without, measured in the same run: what the metrics cost.
// --scale instead measures, for every heavy query of one business over 1,000,000 records (--rows),
// the longest event-loop stall of the service and another business's p99 latency meanwhile;
// --scale-ratios how reads grow from 10,000 to 1,000,000 records (see bench/scale.ts); both on the
// embedded database, on PostgreSQL (--scale-on postgres) or on both.
// --contention instead measures concurrent payments of one business against the same spread over
// businesses on PostgreSQL (see bench/contention.ts).
// --console instead reports the merchant console's initial JavaScript gzipped (budget 250 KB) and the
// time from navigation to the payments list rendered with 50 rows, in Chromium on loopback (see
// bench/console.ts; it needs console/dist, `npm run build:console`). Writes bench/console.json.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { runConsoleBench } from './bench/console.js';
import { runContention } from './bench/contention.js';
import { runScale, runScaleRatios } from './bench/scale.js';
import { freePort } from './soak/server.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    scale: { type: 'boolean', default: false },
    'scale-ratios': { type: 'boolean', default: false },
    // sqlite, postgres or both; both when a PostgreSQL server is named for it (SCALE_POSTGRES_URL, TEST_POSTGRES_URL).
    'scale-on': { type: 'string' },
    rows: { type: 'string', default: '1000000' },
    // Only the scale run's queries whose name holds this text (e.g. "ledger"), to check one change quickly.
    'scale-only': { type: 'string' },
    contention: { type: 'boolean', default: false },
    console: { type: 'boolean', default: false },
    connections: { type: 'string', default: '20' },
    duration: { type: 'string' },
    runs: { type: 'string', default: '1' },
  },
});
const connections = Number(values.connections);
const duration = Number(values.duration ?? (values.quick ? 3 : 10));
const runs = Math.max(1, Number(values.runs));

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

export const log = (line: string) => console.log(line);

interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts a process (compiled JavaScript, or TypeScript through tsx) and resolves once it has printed `listening on`. */
async function startProcess(script: string, env: Record<string, string>): Promise<Server & { startedAt: number }> {
  // A port the system just handed out: a fixed range met ports other programs held (EADDRINUSE).
  const port = await freePort();
  const startedAt = performance.now();
  // The service writes an access line per request. They go to a file, as a production log would,
  // not through a pipe this process (which also runs autocannon) would have to drain.
  const logFile = join(mkdtempSync(join(tmpdir(), 'payments-bench-log-')), 'service.log');
  const logFd = openSync(logFile, 'w');
  const child = spawn(process.execPath, script.endsWith('.ts') ? ['--import', 'tsx', script] : [script], {
    cwd: root,
    // Readiness is read from the `listening on` line, which is logged at info.
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', logFd, logFd],
  });
  closeSync(logFd);
  /** The start of the log: the banner and, on a fresh database, the demo key. */
  const output = () => {
    const fd = openSync(logFile, 'r');
    try {
      const buffer = Buffer.alloc(64 * 1024);
      return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(fd);
    }
  };
  const removeLog = () => rmSync(dirname(logFile), { recursive: true, force: true });
  await new Promise<void>((resolve, reject) => {
    const check = setInterval(() => {
      if (output().includes('listening on')) {
        clearInterval(check);
        resolve();
      } else if (performance.now() - startedAt > 60_000) {
        clearInterval(check);
        child.kill('SIGKILL');
      }
    }, 5);
    child.once('exit', (code) => {
      clearInterval(check);
      const printed = output();
      removeLog();
      reject(new Error(`${script} exited with ${code}:\n${printed}`));
    });
  });
  return {
    child,
    startedAt,
    url: `http://127.0.0.1:${port}`,
    output,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          removeLog();
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

async function waitForLine(server: Server, text: string, timeoutMs = 60_000): Promise<void> {
  const from = performance.now();
  while (!server.output().includes(text)) {
    if (performance.now() - from > timeoutMs) throw new Error(`no "${text}" line within ${timeoutMs} ms:\n${server.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function load(title: string, options: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections, duration, ...options });
  const measured = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
  log(
    `  ${title.padEnd(28)} ${measured.rps.toFixed(0).padStart(7)} req/s   p50 ${String(measured.p50).padStart(4)} ms   p99 ${String(measured.p99).padStart(4)} ms${measured.errors || measured.non2xx ? `   errors ${measured.errors}, non-2xx ${measured.non2xx}` : ''}`,
  );
  return measured;
}

const SERVICE = 'dist/server/main.js';
const CREATE_BODY = JSON.stringify({
  email: 'payer@example.com',
  currency: 'MYR',
  amount: 1000,
  title: 'Invoice 1001',
  reference: 'INV-1001',
  description: 'Bench',
});

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'payments-bench-'));
  const serviceEnv = {
    DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`,
    MAIL_DIR: join(dir, 'mail'),
    // Raised so the load is measured, not refused; the limiter stays in the request path.
    RATE_LIMIT_PER_SECOND: '1000000',
  };
  try {
    log(`bench: ${connections} connections, ${duration} s per measurement, loopback, autocannon ${'\u2014'} ${values.quick ? 'quick' : 'full'} run`);

    // The service runs as `npm start` runs it: the build of the current sources.
    const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) throw new Error('npm run build failed');

    // 1. Start-up: a fresh process on an empty database, until its first successful API request.
    const first = await startProcess(SERVICE, serviceEnv);
    const key = /sk_[A-Za-z0-9_-]{43}/.exec(first.output())?.[0];
    if (!key) throw new Error(`no demo key printed:\n${first.output()}`);
    const auth = { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' };
    for (;;) {
      const response = await fetch(`${first.url}/api/payment-links`, { headers: auth }).catch(() => undefined);
      if (response?.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const startupMs = performance.now() - first.startedAt;
    log(`start-up: ${startupMs.toFixed(0)} ms from process start to the first successful request (empty database, migrations included)`);

    // 2. The responses the ceiling will answer with: the service's own, for a page of 15.
    let created: { data: { _id: string } } | undefined;
    for (let i = 0; i < 15; i += 1)
      created = (await (await fetch(`${first.url}/api/payment-links`, { method: 'POST', headers: auth, body: CREATE_BODY })).json()) as typeof created;
    const id = created!.data._id;
    const bodies = {
      create: created,
      get: await (await fetch(`${first.url}/api/payment-links/${id}`, { headers: auth })).json(),
      list: await (await fetch(`${first.url}/api/payment-links`, { headers: auth })).json(),
    };
    await first.stop();
    const bodiesFile = join(dir, 'bodies.json');
    writeFileSync(bodiesFile, JSON.stringify(bodies));

    const scenarios = {
      create: { method: 'POST' as const, path: '/api/payment-links', body: CREATE_BODY },
      get: { method: 'GET' as const, path: `/api/payment-links/${id}` },
      list: { method: 'GET' as const, path: '/api/payment-links' },
    };
    const measureAll = async (name: string, url: string) => {
      log(`${name}:`);
      const out: Record<string, Measured> = {};
      for (const [scenario, request] of Object.entries(scenarios))
        out[scenario] = await load(`${scenario} ${request.method} ${request.path.replace(id, ':id')}`, {
          url: url + request.path,
          method: request.method,
          body: 'body' in request ? request.body : undefined,
          headers: auth,
        });
      return out;
    };

    // 3. Each server in its own process, one after the other, `--runs` times; every ratio is taken
    // between servers of the same run, and the best run of each counts (the machine is shared).
    const servers = [
      {
        name: 'ceiling',
        title: 'ceiling (bare Koa, same JSON parsing, static envelopes)',
        script: 'scripts/bench/ceiling.ts',
        env: { CEILING_BODIES: bodiesFile },
      },
      {
        name: 'validated',
        title: "validated ceiling (the ceiling + the contract's routes and validation, static envelopes)",
        script: 'scripts/bench/validated-ceiling.ts',
        env: { CEILING_BODIES: bodiesFile },
      },
      { name: 'service', title: 'service (embedded SQLite)', script: SERVICE, env: serviceEnv },
      {
        name: 'metrics',
        title: 'service with its metrics on (METRICS_TOKEN set; embedded SQLite)',
        script: SERVICE,
        env: { ...serviceEnv, METRICS_TOKEN: 'bench-metrics-token-0123456789abcdef' },
      },
      {
        name: 'express',
        title: "express peer (express 5 + express-openapi-validator + pino-http, the service's gate, handlers and store)",
        script: 'scripts/bench/peer-express.ts',
        env: serviceEnv,
      },
      {
        name: 'fastify',
        title: "fastify peer (fastify 5 and its request logger, Ajv schemas from openapi.yaml, the service's gate, handlers and store)",
        script: 'scripts/bench/peer-fastify.ts',
        env: serviceEnv,
      },
    ] as const;
    type Name = (typeof servers)[number]['name'];
    type Scenario = keyof typeof scenarios;
    const ratio = (of: Record<string, Measured>, to: Record<string, Measured>) =>
      Object.fromEntries(Object.keys(scenarios).map((s) => [s, of[s]!.rps / to[s]!.rps])) as Record<Scenario, number>;
    const line = (r: Record<string, number>) =>
      Object.entries(r)
        .map(([s, v]) => `${s}=${v.toFixed(2)}`)
        .join(' ');
    const kinds = ['service', 'validated', 'express', 'fastify', 'serviceOfExpress', 'serviceOfFastify', 'metricsOn'] as const;
    const runResults: { measured: Record<Name, Record<string, Measured>>; ratios: Record<(typeof kinds)[number], Record<Scenario, number>> }[] = [];
    for (let run = 1; run <= runs; run += 1) {
      log(`run ${run} of ${runs}`);
      const measured = {} as Record<Name, Record<string, Measured>>;
      for (const server of servers) {
        const started = await startProcess(server.script, server.env);
        // The peers compile their validators before they listen; the service compiles those no request
        // has needed yet just after (start-up < 1 s): each is measured warm.
        if (server.name === 'service' || server.name === 'metrics') await waitForLine(started, 'request validators compiled');
        measured[server.name] = await measureAll(server.title, started.url);
        await started.stop();
      }
      // A server that answered errors was measured doing something else, and one that answered nothing
      // was starved by other work on the machine: their numbers mean nothing.
      const failed = Object.entries(measured).flatMap(([name, byScenario]) =>
        Object.entries(byScenario)
          .filter(([, m]) => m.non2xx > 0 || m.rps === 0)
          .map(([scenario, m]) => `${name} ${scenario}: ${m.rps === 0 ? 'no answer' : `${m.non2xx} non-2xx answers`}`),
      );
      if (failed.length > 0) throw new Error(`bench measured failing requests:\n${failed.join('\n')}`);
      const ratios = {
        service: ratio(measured.service, measured.ceiling),
        validated: ratio(measured.validated, measured.ceiling),
        express: ratio(measured.express, measured.ceiling),
        fastify: ratio(measured.fastify, measured.ceiling),
        serviceOfExpress: ratio(measured.service, measured.express),
        serviceOfFastify: ratio(measured.service, measured.fastify),
        metricsOn: ratio(measured.metrics, measured.service),
      };
      runResults.push({ measured, ratios });
      log(
        `run ${run}, of the ceiling: validated ${line(ratios.validated)} | service ${line(ratios.service)} | express ${line(ratios.express)} | fastify ${line(ratios.fastify)} | service/express ${line(ratios.serviceOfExpress)} | service/fastify ${line(ratios.serviceOfFastify)} | metrics on/off ${line(ratios.metricsOn)}`,
      );
    }
    const best = (kind: (typeof kinds)[number]) =>
      Object.fromEntries(Object.keys(scenarios).map((s) => [s, Math.max(...runResults.map((r) => r.ratios[kind][s as Scenario]))])) as Record<Scenario, number>;
    const bestOf = Object.fromEntries(kinds.map((kind) => [kind, best(kind)])) as Record<(typeof kinds)[number], Record<Scenario, number>>;
    const targets = [
      ...Object.keys(scenarios).map((s) => ({ what: `validated ${s} >= 0.70`, met: bestOf.validated[s as Scenario] >= 0.7 })),
      { what: 'service create >= 0.30', met: bestOf.service.create >= 0.3 },
      { what: 'service get >= 0.35', met: bestOf.service.get >= 0.35 },
      { what: 'service list >= 0.35', met: bestOf.service.list >= 0.35 },
      ...Object.keys(scenarios).map((s) => ({ what: `service ${s} >= 0.85 of fastify`, met: bestOf.serviceOfFastify[s as Scenario] >= 0.85 })),
      { what: 'start-up < 1000 ms', met: startupMs < 1000 },
      ...Object.keys(scenarios).map((s) => ({ what: `metrics on ${s} >= 0.97 of off`, met: bestOf.metricsOn[s as Scenario] >= 0.97 })),
    ];
    const results = {
      at: new Date().toISOString(),
      node: process.version,
      connections,
      durationSeconds: duration,
      runs,
      startupMs,
      runResults,
      bestOf,
      targets,
    };
    mkdirSync(join(root, 'bench'), { recursive: true });
    writeFileSync(join(root, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    log(`results: bench/results.json`);
    log(
      `best of ${runs}, of the ceiling: validated ${line(bestOf.validated)} | service ${line(bestOf.service)} | express ${line(bestOf.express)} | fastify ${line(bestOf.fastify)} | service/express ${line(bestOf.serviceOfExpress)} | service/fastify ${line(bestOf.serviceOfFastify)} | metrics on/off ${line(bestOf.metricsOn)}`,
    );
    log(`targets: ${targets.map((t) => `${t.what} ${t.met ? 'met' : 'NOT MET'}`).join('; ')}`);
    log(`bench metrics ${line(bestOf.metricsOn)}`);
    log(`bench ${line(bestOf.service)} vs-fastify ${line(bestOf.serviceOfFastify)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const scaleOn = values['scale-on'] ?? (process.env.SCALE_POSTGRES_URL || process.env.TEST_POSTGRES_URL ? 'both' : 'sqlite');
if (scaleOn !== 'sqlite' && scaleOn !== 'postgres' && scaleOn !== 'both')
  throw new Error(`--scale-on takes sqlite, postgres or both, not ${JSON.stringify(scaleOn)}`);
const scaleDatabases: ('sqlite' | 'postgres')[] = scaleOn === 'both' ? ['sqlite', 'postgres'] : [scaleOn];
if (values.scale) {
  let pass = true;
  for (const on of scaleDatabases)
    pass =
      (await runScale({
        log,
        root,
        on,
        rows: Number(values.rows),
        ...(values.duration && { duration: Number(values.duration) }),
        ...(values['scale-only'] && { only: values['scale-only'] }),
      })) && pass;
  process.exitCode = pass ? 0 : 1;
} else if (values['scale-ratios']) {
  for (const on of scaleDatabases) await runScaleRatios({ log, root, on });
} else if (values.contention) await runContention({ log, seconds: values.duration ? duration : undefined });
else if (values.console) {
  const result = await runConsoleBench({ log, runs: values.runs === '1' ? 5 : runs });
  mkdirSync(join(root, 'bench'), { recursive: true });
  writeFileSync(join(root, 'bench', 'console.json'), `${JSON.stringify({ measuredAt: new Date().toISOString(), ...result }, null, 2)}\n`);
  log(
    `bench console initial-js=${(result.initialJs.gzipped / 1024).toFixed(1)}KB budget=${result.initialJs.budget / 1024}KB ${result.initialJs.met ? 'met' : 'NOT MET'} payments-50-rows cold=${result.paymentsList.coldMedianMs.toFixed(0)}ms warm=${result.paymentsList.warmMedianMs.toFixed(0)}ms`,
  );
  process.exitCode = result.initialJs.met ? 0 : 1;
} else await main();
