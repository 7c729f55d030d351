// The container, checked without one (this machine cannot pull images, so the image is never built
// here): the Dockerfile's and compose.yaml's settings as docs/operating.md states them, and the
// entrypoint run outside a container with a stand-in for node that records how it was started.
import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { codeSpans, readPage, tableRows } from '../support/markdown.js';
import { waitFor } from '../support/wait.js';

const ENTRYPOINT = 'docker/entrypoint.sh';

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments left out, split into its stages. */
function dockerfileStages(): Instruction[][] {
  const logical = readFileSync('Dockerfile', 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const stages: Instruction[][] = [];
  for (const line of logical) {
    const at = line.indexOf(' ');
    const instruction = { keyword: line.slice(0, at).toUpperCase(), args: line.slice(at + 1).trim() };
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

const argsOf = (stage: Instruction[], keyword: string) => stage.filter((instruction) => instruction.keyword === keyword).map((instruction) => instruction.args);

describe('the Dockerfile', () => {
  const stages = dockerfileStages();
  const image = stages.at(-1)!;

  it('builds in one stage and runs Node 24 LTS slim in another, the Node.js CI runs', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    const bases = stages.map((stage) => argsOf(stage, 'FROM')[0]!.split(/\s+/)[0]!);
    for (const base of bases) expect(base).toMatch(/^node:24(?:\.\d+)*-[a-z]+-slim$/);
    expect(readFileSync('.ci/run', 'utf8')).toContain('NODE_MAJOR=24');
    expect(argsOf(image, 'COPY').some((args) => args.startsWith('--from='))).toBe(true);
  });

  it('runs as a user other than root, with one data volume the database lives on', () => {
    const users = argsOf(image, 'USER');
    expect(users).toHaveLength(1);
    expect(users[0]).not.toMatch(/^(?:root|0)(?::|$)/);
    expect(argsOf(image, 'VOLUME')).toEqual(['["/data"]']);
    expect(argsOf(image, 'ENV').join(' ')).toContain('DATABASE_URL=sqlite:/data/');
  });

  it('probes /health, stops with SIGTERM, and starts through the entrypoint', () => {
    const [healthcheck] = argsOf(image, 'HEALTHCHECK');
    expect(healthcheck).toMatch(/^--interval=\S+ .*CMD \[.*\/health/);
    expect(argsOf(image, 'STOPSIGNAL')).toEqual(['SIGTERM']);
    const [entrypoint] = argsOf(image, 'ENTRYPOINT');
    const target = (JSON.parse(entrypoint!) as string[])[0]!;
    expect(argsOf(image, 'COPY')).toContain(`${ENTRYPOINT} ${target}`);
    accessSync(ENTRYPOINT, constants.X_OK);
  });

  it('is built from a context without what the build makes itself', () => {
    const ignored = readFileSync('.dockerignore', 'utf8').split('\n');
    for (const entry of ['node_modules', 'dist', 'data', '.git']) expect(ignored).toContain(entry);
  });
});

interface ComposeService {
  build?: string;
  image?: string;
  read_only?: boolean;
  tmpfs?: string[];
  volumes?: string[];
  ports?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: unknown;
}

describe('compose.yaml', () => {
  const compose = parse(readFileSync('compose.yaml', 'utf8'), { merge: true }) as { services: Record<string, ComposeService> };
  const instances = Object.entries(compose.services).filter(([, service]) => service.build === '.');
  const documented = new Set(tableRows(readPage('docs/operating.md'), 'Variable').map(([variable]) => codeSpans(variable!)[0]!));

  it('runs PostgreSQL, Redis and two instances of the image behind a proxy', () => {
    expect(instances.map(([name]) => name)).toHaveLength(2);
    expect(compose.services.postgres?.healthcheck).toBeDefined();
    expect(compose.services.redis?.healthcheck).toBeDefined();
    const proxy = compose.services.proxy!;
    expect(Object.keys(proxy.depends_on ?? {}).sort()).toEqual(instances.map(([name]) => name).sort());
    const config = readFileSync(proxy.volumes![0]!.split(':')[0]!, 'utf8');
    for (const [name] of instances) expect(config).toContain(`server ${name}:3000`);
  });

  it('gives each instance a read-only root, its data volume, the shared database and Redis, and settings the service reads', () => {
    for (const [name, service] of instances) {
      expect(service.read_only, name).toBe(true);
      expect(service.tmpfs, name).toContain('/tmp');
      expect(
        service.volumes?.some((volume) => volume.endsWith(':/data')),
        name,
      ).toBe(true);
      expect(service.ports, `${name} publishes nothing: the proxy is the way in`).toBeUndefined();
      expect(service.depends_on?.postgres?.condition).toBe('service_healthy');
      const environment = service.environment!;
      expect(environment.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(environment.REDIS_URL).toBe('redis://redis:6379');
      expect(environment.METRICS_TOKEN).toBeDefined();
      for (const variable of Object.keys(environment)) expect(documented.has(variable), `${variable} is a setting of docs/operating.md`).toBe(true);
    }
  });

  it('keeps /metrics off the public address: the proxy refuses it, and the metrics port is not published', () => {
    const config = readFileSync('docker/nginx.conf', 'utf8');
    expect(config).toMatch(/location = \/metrics \{\s*return 404;\s*\}/);
    const [, first] = instances[0]!;
    expect(first.environment!.METRICS_PORT).toMatch(/^\d+$/);
    expect(JSON.stringify(compose.services.proxy!.ports)).not.toContain(first.environment!.METRICS_PORT!);
  });
});

/** A stand-in for node on PATH: records its pid, arguments and MIGRATE_ON_START, fails the migration when asked, and runs as the service until SIGTERM. */
const FAKE_NODE = `#!/bin/sh
echo "$$ $* MIGRATE_ON_START=\${MIGRATE_ON_START:-unset}" >> "$FAKE_NODE_LOG"
case "$1" in
  dist/scripts/migrate.js) exit "\${FAKE_MIGRATION_STATUS:-0}" ;;
esac
trap 'echo "TERM received" >> "$FAKE_NODE_LOG"; exit 0' TERM
echo "listening" >> "$FAKE_NODE_LOG"
while :; do sleep 1 & wait $!; done
`;

function entrypointWithFakeNode(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'entrypoint-'));
  mkdirSync(join(dir, 'bin'));
  writeFileSync(join(dir, 'bin', 'node'), FAKE_NODE, { mode: 0o755 });
  const log = join(dir, 'node.log');
  const child = spawn('sh', [ENTRYPOINT], {
    env: { PATH: `${join(dir, 'bin')}:/usr/bin:/bin`, APP_DIR: dir, FAKE_NODE_LOG: log, ...env },
    stdio: 'ignore',
    // A group of its own, so that whatever it started is stopped with it, even when a failing run did not exec.
    detached: true,
  });
  onTestFinished(() => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
  return { child, exited, lines };
}

describe('the entrypoint (docker/entrypoint.sh), outside a container', () => {
  it('migrates, then becomes the service (exec), which gets the SIGTERM a stop sends', async () => {
    const { child, exited, lines } = entrypointWithFakeNode();
    await waitFor('the service started', () => lines().includes('listening'));
    const [migration, service] = lines();
    expect(migration).toMatch(/^\d+ dist\/scripts\/migrate\.js MIGRATE_ON_START=unset$/);
    // The service runs in the entrypoint's own process: no shell stands between it and the runtime's signals.
    expect(service).toBe(`${child.pid} dist/server/main.js MIGRATE_ON_START=off`);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(lines().at(-1)).toBe('TERM received');
  });

  it('does not start the service when the migrations fail', async () => {
    const { exited, lines } = entrypointWithFakeNode({ FAKE_MIGRATION_STATUS: '3' });
    expect(await exited).toBe(3);
    expect(lines()).toHaveLength(1);
  });
});
