// Where a request's time goes, in the service and in the fair fastify peer doing the same work:
// each server under the bench's load (create, get and list of payment links), profiled by V8 for the
// load's window only (profile-window.mjs), and every sample's self time put in an area (Koa, fastify,
// validation, the access log, the rate limiter, SQLite...). Printed as microseconds of the main
// thread per request, so the two servers compare whatever the machine's load did to their rates.
//
//   npx tsx scripts/bench/profile-hot-path.ts [--seconds 10] [--connections 10] [--keep DIR]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from '../soak/server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, connections: { type: 'string', default: '10' }, keep: { type: 'string' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);

interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface CpuProfile {
  nodes: CpuProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Running {
  child: ChildProcess;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

async function start(script: string, env: Record<string, string>, profileFile: string): Promise<Running> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'payments-profile-log-'));
  const logFile = join(dir, 'server.log');
  const fd = openSync(logFile, 'w');
  const args = ['--import', './scripts/bench/profile-window.mjs', ...(script.endsWith('.ts') ? ['--import', 'tsx'] : []), script];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', PROFILE_FILE: profileFile, ...env },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const output = () => {
    const read = openSync(logFile, 'r');
    try {
      const buffer = Buffer.alloc(256 * 1024);
      return buffer.toString('utf8', 0, readSync(read, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(read);
    }
  };
  const until = async (text: string) => {
    const from = performance.now();
    while (!output().includes(text)) {
      if (child.exitCode !== null) throw new Error(`${script} exited:\n${output()}`);
      if (performance.now() - from > 60_000) throw new Error(`no "${text}" from ${script}:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await until('listening on');
  return {
    child,
    url: `http://127.0.0.1:${port}`,
    output,
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Waits for the `count`th `text` line of a log. */
async function waitFor(file: string, text: string, count = 1): Promise<void> {
  const from = performance.now();
  const seen = () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((line) => line.includes(text)).length : 0);
  while (seen() < count) {
    if (performance.now() - from > 60_000) throw new Error(`no "${text}" (${count}) in ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const PACKAGES: [RegExp, string][] = [
  [/^(koa|@koa\/.*|koa-.*|http-errors|statuses|on-finished|accepts|negotiator|type-is|content-type|cookies|keygrip|depd|media-typer|mime-.*|vary|encodeurl|escape-html|delegates|only|destroy|fresh|http-assert|content-disposition|path-to-regexp|co-body|raw-body|inflation|iconv-lite|bytes|unpipe|toidentifier|ee-first)$/, 'Koa, its router and body parser'],
  [/^(fastify|@fastify\/.*|find-my-way|avvio|light-my-request|fast-querystring|fast-decode-uri-component|abstract-logging|process-warning|rfdc|toad-cache|safe-regex2|ret|secure-json-parse|fast-content-type-parse|json-schema-ref-resolver|proxy-addr|forwarded|ipaddr\.js|semver|cookie|set-cookie-parser|reusify|fastq|dequal|thread-stream|real-require)$/, 'fastify'],
  [/^(ajv|ajv-formats|openapi-backend|openapi-types|fast-uri|json-schema-traverse|fast-deep-equal|require-from-string|mock-json-schema|bath-es5|@apidevtools\/.*|openapi-schema-validator)$/, 'validation (Ajv, openapi-backend)'],
  [/^(pino|pino-std-serializers|sonic-boom|fast-redact|on-exit-leak-free|atomic-sleep|quick-format-unescaped|safe-stable-stringify|pino-abstract-transport|@pinojs\/.*|slow-redact)$/, 'access log (pino)'],
  [/^(knex|lodash|tarn|getopts|interpret|rechoir|colorette|pg-connection-string|escalade|tildify)$/, 'Knex (queries built and bound)'],
  // Turned off, but still called: @koa/router calls it for every route it tests a path against.
  [/^(debug|ms)$/, 'debug() calls, turned off'],
  [/^better-sqlite3$/, 'SQLite (better-sqlite3)'],
  [/^fast-json-stringify$/, 'JSON answers (serializers)'],
  [/^(prom-client|tdigest|bintrees)$/, 'metrics (prom-client)'],
  [/^(qs|side-channel.*|call-bind.*|get-intrinsic|es-errors|object-inspect|has-symbols|function-bind|hasown|gopd|dunder-proto|math-intrinsics|es-object-atoms|get-proto|es-define-property|call-bound)$/, 'query strings (qs)'],
  [/^lru-cache$/, 'caches (keys, limits)'],
];

const OURS: [RegExp, string][] = [
  [/\/http\/request-log\./, 'access log (ours: the line, scrubbing)'],
  [/\/rate-limits\//, 'rate limiter'],
  [/\/store\/api-key-cache\.|\/http\/authenticat|\/http\/caller|\/store\/api-keys\./, 'API key lookup'],
  [/\/http\/(csrf|session)|\/usecases\/members\/session/, 'CSRF and session checks'],
  [/\/http\/linger\./, 'linger logic'],
  [/\/metrics|\/http\/metrics/, 'metrics (ours)'],
  [/\/http\/(serializ|json)/, 'JSON answers (serializers)'],
  [/\/store\/sqlite/, 'SQLite (our executor)'],
  [/\/http\//, 'HTTP layer (ours: gate, routes, envelope, headers)'],
  [/\/store\//, 'store (ours)'],
  [/\/(usecases|handlers|domain|outbox)\//, 'handlers, use cases, domain'],
  [/\/scripts\/bench\/peer-/, "the peer's own glue"],
];

function areaOfUrl(url: string): string | undefined {
  if (url === '') return undefined;
  if (url.startsWith('node:')) return /node:(internal\/)?(http|_http|net|stream|internal\/streams|dns|tls|timers|internal\/timers)/.test(url) ? 'Node HTTP, sockets, timers' : 'Node, other';
  const at = url.lastIndexOf('/node_modules/');
  if (at >= 0) {
    const rest = url.slice(at + '/node_modules/'.length).split('/');
    const name = rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
    for (const [pattern, area] of PACKAGES) if (pattern.test(name)) return area;
    return `other packages (${name})`;
  }
  for (const [pattern, area] of OURS) if (pattern.test(url)) return area;
  return 'other (ours)';
}

/** Self time by area, in microseconds; native frames count for the area of the JavaScript that called them. */
function areas(profile: CpuProfile): Map<string, number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const cache = new Map<number, string | null>();
  const areaOf = (id: number): string | null => {
    const known = cache.get(id);
    if (known !== undefined) return known;
    const { functionName, url } = byId.get(id)!.callFrame;
    let area: string | null;
    // The profiler's own calls (its start and stop through node:inspector) are not the server's work.
    if (functionName === '(idle)' || functionName === '(root)' || url === 'node:inspector' || url.startsWith('node:inspector/')) area = null;
    else if (functionName === '(garbage collector)') area = 'garbage collection';
    else if (functionName === '(program)') area = 'native, outside JavaScript (program)';
    else if (url === '' && (functionName === 'stringify' || functionName === 'parse')) area = `JSON.${functionName}`;
    // Ajv's compiled validators are functions made from source text: no file, named validate<N>.
    else if (url === '' && /^validate\d*$/.test(functionName)) area = 'validation (Ajv, openapi-backend)';
    else {
      area = areaOfUrl(url) ?? null;
      if (area === null) {
        const up = parent.get(id);
        const above = up === undefined ? null : areaOf(up);
        area = above === 'SQLite (our executor)' ? 'SQLite (better-sqlite3)' : (above ?? 'native, outside JavaScript (program)');
      }
    }
    cache.set(id, area);
    return area;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const area = areaOf(id);
    if (area === null) return;
    totals.set(area, (totals.get(area) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return totals;
}

const CREATE_BODY = JSON.stringify({ email: 'payer@example.com', currency: 'MYR', amount: 1000, title: 'Invoice 1001', reference: 'INV-1001', description: 'Bench' });

async function main(): Promise<void> {
  const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'payments-profile-'));
  const env = { DATABASE_URL: `sqlite:${join(dir, 'bench.sqlite')}`, MAIL_DIR: join(dir, 'mail'), RATE_LIMIT_PER_SECOND: '1000000' };
  console.log(`profile: ${connections} connections, ${seconds} s per path, files in ${dir}`);
  if (spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) throw new Error('npm run build failed');

  const first = await start('dist/server/main.js', env, join(dir, 'unused'));
  const key = /sk_[A-Za-z0-9_-]{43}/.exec(first.output())?.[0];
  if (!key) throw new Error(`no demo key printed:\n${first.output()}`);
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' };
  let id = '';
  for (let i = 0; i < 15; i += 1) id = ((await (await fetch(`${first.url}/api/payment-links`, { method: 'POST', headers, body: CREATE_BODY })).json()) as { data: { _id: string } }).data._id;
  await first.stop();

  const scenarios = {
    create: { method: 'POST' as const, path: '/api/payment-links', body: CREATE_BODY },
    get: { method: 'GET' as const, path: `/api/payment-links/${id}` },
    list: { method: 'GET' as const, path: '/api/payment-links' },
  };
  const servers = { service: 'dist/server/main.js', fastify: 'scripts/bench/peer-fastify.ts' };
  const results: Record<string, Record<string, { requests: number; areas: Map<string, number> }>> = {};
  for (const [name, script] of Object.entries(servers)) {
    const profileFile = join(dir, `${name}.cpuprofile`);
    const server = await start(script, env, profileFile);
    if (name === 'service') {
      const from = performance.now();
      while (!server.output().includes('request validators compiled')) {
        if (performance.now() - from > 60_000) throw new Error(`the service compiled no validators:\n${server.output()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    results[name] = {};
    let written = 0;
    for (const [scenario, request] of Object.entries(scenarios)) {
      const options = { url: server.url + request.path, method: request.method, body: 'body' in request ? request.body : undefined, headers, connections };
      await autocannon({ ...options, duration: 2 }); // warm: the JIT, the caches, the first use of each path
      server.child.kill('SIGUSR2');
      await waitFor(`${profileFile}.log`, 'started', written + 1);
      const measured = await autocannon({ ...options, duration: seconds });
      server.child.kill('SIGUSR2');
      written += 1;
      await waitFor(`${profileFile}.log`, 'written', written);
      if (measured.non2xx > 0 || measured.errors > 0) throw new Error(`${name} ${scenario}: ${measured.non2xx} non-2xx, ${measured.errors} errors`);
      // Kept per path, for a closer look (Chrome DevTools or speedscope open a .cpuprofile).
      copyFileSync(profileFile, join(dir, `${name}-${scenario}.cpuprofile`));
      const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
      results[name]![scenario] = { requests: measured.requests.total, areas: areas(profile) };
      console.log(`profile: ${name} ${scenario}: ${measured.requests.total} requests, ${measured.requests.average.toFixed(0)} req/s`);
    }
    await server.stop();
  }

  for (const scenario of Object.keys(scenarios)) {
    const service = results.service![scenario]!;
    const fastify = results.fastify![scenario]!;
    const perRequest = (of: { requests: number; areas: Map<string, number> }, area: string) => (of.areas.get(area) ?? 0) / of.requests;
    const names = [...new Set([...service.areas.keys(), ...fastify.areas.keys()])].sort(
      (a, b) => perRequest(service, b) + perRequest(fastify, b) - perRequest(service, a) - perRequest(fastify, a),
    );
    const total = (of: { requests: number; areas: Map<string, number> }) => [...of.areas.values()].reduce((sum, us) => sum + us, 0) / of.requests;
    console.log(`\n${scenario} (${scenarios[scenario as keyof typeof scenarios].method} ${scenarios[scenario as keyof typeof scenarios].path.replace(id, '{id}')}): µs of the main thread per request`);
    console.log('| area | service | fastify peer | service - peer |');
    console.log('|---|---|---|---|');
    for (const name of names) {
      const s = perRequest(service, name);
      const f = perRequest(fastify, name);
      if (s < 0.5 && f < 0.5) continue;
      console.log(`| ${name} | ${s.toFixed(1)} | ${f.toFixed(1)} | ${(s - f >= 0 ? '+' : '') + (s - f).toFixed(1)} |`);
    }
    console.log(`| **busy time per request** | **${total(service).toFixed(1)}** | **${total(fastify).toFixed(1)}** | **${(total(service) - total(fastify) >= 0 ? '+' : '') + (total(service) - total(fastify)).toFixed(1)}** |`);
  }
  if (!values.keep && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

await main();
