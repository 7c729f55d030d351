// `npm run soak [-- --duration 60] [--rate 200] [--warmup 10]`
// Holds the compiled service (embedded SQLite, a fresh database) under a steady open-loop load on
// loopback: operations start on a fixed schedule whatever the server's speed, so a slow server shows
// up as latency instead of as a politely slower client. The mix is 30% creates, 40% gets, 20% lists
// and 10% payments through the hosted pay pages with the sandbox's good card. Every 5 s it prints the
// window's operations, errors and p50/p99; it samples the server's RSS throughout and compares the
// end with the RSS after warm-up. Targets: 0 errors and RSS growth after warm-up of at most 20%;
// the exit code is 1 when either is missed. Full results go to bench/soak.json.
// RSS keeps rising for a few minutes even without a leak: better-sqlite3 builds SQLite with a 16 MB
// page cache per connection (the service has a writer and a reader) and the caches fill as the file
// grows; the JavaScript heap stays flat. Soaks much longer than 60 s want a longer --warmup.
// A busy machine shows up as latency; each window reports how long the server waited for a CPU.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { payPath } from '../server/domain/payer-urls.js';
import { issueKey } from '../server/store/api-keys.js';
import { findOrCreateBusiness } from '../server/store/businesses.js';
import { openDatabase } from '../server/store/database.js';
import { pay } from './soak/payer.js';
import { cpuSeconds, cpuWaitSeconds, rssBytes, startServer, type SoakServer } from './soak/server.js';
import { Window, mb, summarize, type Kind } from './soak/stats.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '60' },
    rate: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '10' },
  },
});

function bounded(name: string, text: string, min: number, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max) {
    console.error(`--${name} must be a number from ${min} to ${max}, got ${JSON.stringify(text)}`);
    process.exit(2);
  }
  return value;
}

const DURATION_S = bounded('duration', values.duration, 5, 3_600);
const RATE = bounded('rate', values.rate, 1, 5_000);
// A short soak still gets an end to compare the warm-up with.
const WARMUP_S = Math.min(bounded('warmup', values.warmup, 0, 3_600), DURATION_S / 2);
const WINDOW_S = 5;
const TIMEOUT_MS = 10_000;
const RSS_GROWTH_TARGET = 20;
/** One cycle of ten slots, spread so each kind recurs evenly: 3 creates, 4 gets, 2 lists, 1 payment. */
const CYCLE: Kind[] = ['create', 'get', 'list', 'get', 'create', 'payment', 'get', 'list', 'create', 'get'];

const log = (line: string) => console.log(line);

interface Target {
  url: string;
  auth: Record<string, string>;
  /** Payment links the soak created; get picks among them. */
  links: string[];
  /** Those not yet paid; each payment takes one, so no payer is refused as "already paid". */
  unpaid: string[];
  openLinkId: string;
}

let sequence = 0;

async function api(
  target: Target,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: { data?: { _id?: string } } }> {
  const response = await fetch(target.url + path, {
    method,
    headers: { ...target.auth, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await response.text();
  return { status: response.status, json: response.status === 200 ? JSON.parse(text) : {} };
}

async function createLink(target: Target): Promise<{ ok: boolean; http: number; error?: string }> {
  const n = ++sequence;
  const body = { email: `payer${n % 500}@example.com`, currency: 'MYR', amount: 500 + ((n * 7919) % 100_000), title: `Invoice ${n}`, reference: `SOAK-${n}` };
  // A quarter of creates carry an Idempotency-Key, so its records are part of what must stay bounded.
  const headers: Record<string, string> = n % 4 === 0 ? { 'Idempotency-Key': `soak-${n}` } : {};
  const { status, json } = await api(target, 'POST', '/api/payment-links', body, headers);
  const id = json.data?._id;
  if (status !== 200 || !id) return { ok: false, http: 1, error: `create answered ${status}` };
  target.links.push(id);
  target.unpaid.push(id);
  return { ok: true, http: 1 };
}

const LISTS = [
  '/api/payment-links',
  '/api/payment-links?page=2&per_page=15',
  '/api/payment-links?filter%5Bstatus%5D=Active',
  '/api/payment-links?filter%5Bemail%5D=payer7%40example.com',
  '/api/open-payment-links',
];

async function operate(kind: Kind, target: Target, slot: number): Promise<{ ok: boolean; http: number; error?: string }> {
  switch (kind) {
    case 'create':
      return createLink(target);
    case 'get': {
      const id = target.links[Math.floor(Math.random() * target.links.length)]!;
      const { status } = await api(target, 'GET', `/api/payment-links/${id}`);
      return status === 200 ? { ok: true, http: 1 } : { ok: false, http: 1, error: `get answered ${status}` };
    }
    case 'list': {
      // Every sixth list is the open link's total-collection report, which grows with the payments.
      const path = slot % 6 === 5 ? `/api/open-payment-links/${target.openLinkId}/total-collection?filter%5Blimit%5D=5` : LISTS[slot % LISTS.length]!;
      const { status } = await api(target, 'GET', path);
      return status === 200 ? { ok: true, http: 1 } : { ok: false, http: 1, error: `list ${path} answered ${status}` };
    }
    case 'payment': {
      const n = ++sequence;
      const card = { card_number: '4242 4242 4242 4242', expiry: '12/39', cvc: '123' };
      // Three payments in four pay a payment link in full; the fourth gives to the open link.
      const linkId = n % 4 !== 0 ? target.unpaid.shift() : undefined;
      const answer = linkId
        ? await pay(target.url, payPath('payment_link', linkId), { name: `Payer ${n}`, ...card }, TIMEOUT_MS)
        : await pay(
            target.url,
            payPath('open_payment_link', target.openLinkId),
            { amount: (10 + (n % 90)).toFixed(2), name: `Donor ${n}`, email: `donor${n}@example.com`, ...card },
            TIMEOUT_MS,
          );
      return { ok: !answer.error, http: answer.requests, error: answer.error };
    }
  }
}

async function prepare(databaseUrl: string): Promise<string> {
  const db = openDatabase(databaseUrl);
  try {
    await db.migrate();
    const business = await findOrCreateBusiness(db, 'Soak');
    return (await issueKey(db, business.id)).key;
  } finally {
    await db.close();
  }
}

async function main(): Promise<void> {
  log(`soak: ${DURATION_S} s at ${RATE} operations/s (open loop; 30% create, 40% get, 20% list, 10% payment), warm-up ${WARMUP_S} s, loopback`);
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) throw new Error('npm run build failed');

  const dir = mkdtempSync(join(tmpdir(), 'payments-soak-'));
  const databaseUrl = `sqlite:${join(dir, 'soak.sqlite')}`;
  let server: SoakServer | undefined;
  const interrupt = () => {
    void server?.stop().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupt);
  try {
    const key = await prepare(databaseUrl);
    server = await startServer(root, 'dist/server/main.js', {
      DATABASE_URL: databaseUrl,
      MAIL_DIR: join(dir, 'mail'),
      // Raised so the load is measured, not refused; the limiter stays in the request path.
      RATE_LIMIT_PER_SECOND: '1000000',
      PAGE_RATE_LIMIT_PER_ADDRESS: '1000000',
      PAGE_RATE_LIMIT_PER_LINK: '1000000',
      PAGE_RATE_LIMIT_PER_CARD: '1000000',
    });
    const pid = server.pid;
    const rssAtStart = rssBytes(pid)!;
    const target: Target = {
      url: server.url,
      auth: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' },
      links: [],
      unpaid: [],
      openLinkId: '',
    };
    const open = await api(target, 'POST', '/api/open-payment-links', { currency: 'MYR', minimum_amount: '10.00', title: 'Soak donations' });
    if (open.status !== 200) throw new Error(`creating the open link answered ${open.status}`);
    target.openLinkId = open.json.data!._id!;
    // Gets need something to get from the first slot on.
    for (let i = 0; i < 50; i += 1) if (!(await createLink(target)).ok) throw new Error('seeding payment links failed');
    log(`server pid ${pid} at ${server.url}, RSS at start ${mb(rssAtStart)} MB; 50 payment links and 1 open link seeded`);
    // Other work on the machine shows up as latency here; the load average says how much there was.
    const loadAtStart = loadavg()[0]!;
    log(`machine: ${cpus().length} cores, 1-minute load average ${loadAtStart.toFixed(2)} at start`);

    const windows = Array.from({ length: Math.ceil(DURATION_S / WINDOW_S) }, (_, i) => new Window(i, i * WINDOW_S, Math.min(DURATION_S, (i + 1) * WINDOW_S)));
    const rssSamples: { t_s: number; rss_mb: number }[] = [];
    const errorSamples: { t_s: number; kind: Kind; error: string }[] = [];
    let errors = 0;
    let httpRequests = 0;
    let outstanding = 0;
    let maxOutstanding = 0;
    let maxLagMs = 0;
    const total = Math.floor(DURATION_S * RATE);
    const interval = 1_000 / RATE;
    const t0 = performance.now() + 20;
    const elapsed = () => (performance.now() - t0) / 1_000;
    let rssAfterWarmup: number | undefined;

    const sampleRss = () => {
      const rss = rssBytes(pid);
      if (rss === undefined) return;
      rssSamples.push({ t_s: Math.round(elapsed() * 10) / 10, rss_mb: mb(rss) });
      return rss;
    };
    const rssTimer = setInterval(sampleRss, 1_000);
    const warmupTimer = setTimeout(
      () => {
        rssAfterWarmup = sampleRss();
        if (rssAfterWarmup !== undefined) log(`  warm-up done at ${elapsed().toFixed(1)} s: RSS ${mb(rssAfterWarmup)} MB (the baseline for growth)`);
      },
      t0 + WARMUP_S * 1_000 - performance.now(),
    );

    const printReady = (force: boolean) => {
      for (const w of windows) {
        if (w.printed) continue;
        const over = elapsed() >= w.toSeconds;
        if (!force && (!over || w.done < w.started)) return;
        w.printed = true;
        const s = summarize(w.latencies);
        log(
          `  [${String(w.fromSeconds).padStart(4)}-${String(w.toSeconds).padStart(4)} s] ${String(w.done).padStart(6)} ops ${String(w.http).padStart(6)} http  ` +
            `errors ${String(w.errors).padStart(3)}  p50 ${s.p50.toFixed(1).padStart(6)} ms  p99 ${s.p99.toFixed(1).padStart(7)} ms  ` +
            `RSS ${w.rssBytes === undefined ? '-' : mb(w.rssBytes)} MB  server CPU ${w.cpuPercent ?? '-'}% (waiting for CPU ${w.cpuWaitPercent ?? '-'}%)  load ${loadavg()[0]!.toFixed(1)}`,
        );
      }
    };
    let cpuMark = { at: performance.now(), seconds: cpuSeconds(pid) ?? 0, waited: cpuWaitSeconds(pid) ?? 0 };
    /** A window's RSS and CPU are taken when its time is up, even if its slowest operations are still out. */
    const closeWindows = (all: boolean) => {
      for (const w of windows) {
        if (w.cpuPercent !== undefined || (!all && elapsed() < w.toSeconds)) continue;
        w.rssBytes = rssBytes(pid);
        const now = { at: performance.now(), seconds: cpuSeconds(pid) ?? cpuMark.seconds, waited: cpuWaitSeconds(pid) ?? cpuMark.waited };
        const wall = (now.at - cpuMark.at) / 1_000;
        w.cpuPercent = Math.round(((now.seconds - cpuMark.seconds) / wall) * 100);
        w.cpuWaitPercent = Math.round(((now.waited - cpuMark.waited) / wall) * 100);
        cpuMark = now;
      }
    };
    const windowTimer = setInterval(() => {
      closeWindows(false);
      printReady(false);
    }, 100);

    let allDone!: () => void;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    let launched = 0;
    const launch = (slot: number, scheduledAt: number) => {
      const kind = CYCLE[slot % CYCLE.length]!;
      const window = windows[Math.min(windows.length - 1, Math.floor((scheduledAt - t0) / 1_000 / WINDOW_S))]!;
      window.started += 1;
      outstanding += 1;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      maxLagMs = Math.max(maxLagMs, performance.now() - scheduledAt);
      operate(kind, target, slot)
        .catch((error: unknown) => ({ ok: false, http: 1, error: `${(error as Error).name}: ${(error as Error).message}` }))
        .then(({ ok, http, error }) => {
          // Latency from the scheduled start, so a stall in the client or the server is not hidden.
          window.record(kind, performance.now() - scheduledAt, ok, http);
          httpRequests += http;
          if (!ok) {
            errors += 1;
            if (errorSamples.length < 50) errorSamples.push({ t_s: Math.round(elapsed() * 10) / 10, kind, error: error ?? 'unknown' });
          }
          outstanding -= 1;
          if (launched === total && outstanding === 0) allDone();
        });
    };
    const scheduler = setInterval(() => {
      const now = performance.now();
      while (launched < total && t0 + launched * interval <= now) {
        launch(launched, t0 + launched * interval);
        launched += 1;
      }
      if (launched === total) clearInterval(scheduler);
    }, 1);

    await finished;
    clearInterval(windowTimer);
    clearInterval(rssTimer);
    clearTimeout(warmupTimer);
    const rssAtEnd = sampleRss() ?? rssBytes(pid);
    closeWindows(true);
    printReady(true);
    const serverAlive = server.child.exitCode === null && server.child.signalCode === null;
    if (!serverAlive) {
      errors += 1;
      errorSamples.push({ t_s: elapsed(), kind: 'get', error: `the server exited:\n${server.tail()}` });
    }

    const all = windows.flatMap((w) => w.latencies);
    const overall = summarize(all);
    const warm = rssAfterWarmup ?? rssAtStart;
    const growth = rssAtEnd === undefined ? Number.POSITIVE_INFINITY : ((rssAtEnd - warm) / warm) * 100;
    const passed = errors === 0 && growth <= RSS_GROWTH_TARGET;
    const results = {
      at: new Date().toISOString(),
      node: process.version,
      machine: { cores: cpus().length, load_average_1m_start: loadAtStart, load_average_1m_end: loadavg()[0] },
      config: {
        duration_s: DURATION_S,
        rate_ops_per_s: RATE,
        warmup_s: WARMUP_S,
        window_s: WINDOW_S,
        mix: { create: 0.3, get: 0.4, list: 0.2, payment: 0.1 },
        open_loop: true,
        latency_measured_from: 'scheduled start',
      },
      totals: {
        operations: all.length,
        http_requests: httpRequests,
        errors,
        achieved_ops_per_s: Math.round((all.length / DURATION_S) * 10) / 10,
        max_outstanding: maxOutstanding,
        max_schedule_lag_ms: Math.round(maxLagMs * 10) / 10,
        payment_links_created: target.links.length,
      },
      latency_ms: summarize(all),
      latency_ms_by_kind: Object.fromEntries(
        (['create', 'get', 'list', 'payment'] as Kind[]).map((kind) => [kind, summarize(windows.flatMap((w) => w.byKind.get(kind) ?? []))]),
      ),
      windows: windows.map((w) => w.toJSON()),
      rss: {
        start_mb: mb(rssAtStart),
        after_warmup_mb: mb(warm),
        end_mb: rssAtEnd === undefined ? null : mb(rssAtEnd),
        max_mb: Math.max(...rssSamples.map((s) => s.rss_mb)),
        growth_after_warmup_percent: Math.round(growth * 10) / 10,
        target_percent: RSS_GROWTH_TARGET,
        samples: rssSamples,
      },
      error_samples: errorSamples,
      passed,
    };
    mkdirSync(join(root, 'bench'), { recursive: true });
    writeFileSync(join(root, 'bench', 'soak.json'), `${JSON.stringify(results, null, 2)}\n`);

    const p99s = windows.map((w) => summarize(w.latencies).p99);
    log(
      `soak: ${all.length} operations (${httpRequests} HTTP requests) in ${DURATION_S} s, ${results.totals.achieved_ops_per_s} ops/s; max ${maxOutstanding} outstanding, schedule lag at most ${results.totals.max_schedule_lag_ms} ms`,
    );
    log(`machine: 1-minute load average ${loadAtStart.toFixed(2)} at start, ${loadavg()[0]!.toFixed(2)} at end, on ${cpus().length} cores`);
    log(`soak: latency p50 ${overall.p50} ms, p99 ${overall.p99} ms, max ${overall.max} ms; p99 per window ${p99s.map((p) => p.toFixed(1)).join(' ')} ms`);
    for (const [kind, s] of Object.entries(results.latency_ms_by_kind))
      log(`  ${kind.padEnd(8)} ${String(s.count).padStart(6)} ops  p50 ${s.p50} ms  p99 ${s.p99} ms`);
    if (errorSamples.length > 0)
      log(
        `soak: first errors:\n${errorSamples
          .slice(0, 5)
          .map((e) => `  ${e.t_s} s ${e.kind}: ${e.error}`)
          .join('\n')}`,
      );
    log(`soak: errors ${errors} (target 0) ${errors === 0 ? 'ok' : 'MISSED'}`);
    log(
      `soak: RSS start ${mb(rssAtStart)} MB, after warm-up ${mb(warm)} MB, end ${rssAtEnd === undefined ? '-' : mb(rssAtEnd)} MB: ` +
        `growth after warm-up ${growth >= 0 ? '+' : ''}${growth.toFixed(1)}% (target ≤ ${RSS_GROWTH_TARGET}%) ${growth <= RSS_GROWTH_TARGET ? 'ok' : 'MISSED'}`,
    );
    log('results: bench/soak.json');
    log(`soak ${passed ? 'PASSED' : 'FAILED'}`);
    process.exitCode = passed ? 0 : 1;
  } finally {
    process.off('SIGINT', interrupt);
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
