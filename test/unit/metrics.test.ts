// The metrics' pieces that need no service: the example alert rules pass promtool and, with the
// Grafana dashboard, name only families the service exports; a refused hit is counted by its limit,
// never by its bucket (an address, a key, an account).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ServiceMetrics } from '../../server/metrics/service-metrics.js';
import { MemoryRateLimiter } from '../../server/rate-limits/backends.js';
import { countingRefusals, limitOf } from '../../server/rate-limits/refusals.js';

const RULES = 'docs/operating/alerts.yaml';
const DASHBOARD = 'docs/operating/grafana-dashboard.json';
/** Named by a rule ahead of the settlement ledger that will export it (see the comment in the rules file). */
const NOT_YET_EXPORTED = new Set<string>();

/** The service's families, and the names their series go by (a histogram's _bucket, _sum and _count). */
function exported(): { families: string[]; series: Set<string> } {
  const metrics = new ServiceMetrics({
    outboxBacklog: async () => ({ pending: 0, oldestAgeSeconds: 0 }),
    databasePool: () => ({ max: 1, open: 0, idle: 0, waiting: 0 }),
    lastVerifiedBackup: async () => undefined,
    payoutsUnreconciled: async () => 0,
  });
  const families = metrics.registry.getMetricsAsArray();
  const series = new Set<string>();
  for (const family of families) {
    series.add(family.name);
    if (family.type.toString() === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) series.add(`${family.name}${suffix}`);
  }
  return { families: families.map((family) => family.name), series };
}

const namesIn = (expression: string) => [...expression.matchAll(/\bpayment_collection_[a-z0-9_]+/g)].map((m) => m[0]);

describe('the example alert rules and Grafana dashboard (docs/operating/)', () => {
  it('pass promtool check rules', (context) => {
    if (spawnSync('promtool', ['--version']).status !== 0) {
      console.log('SKIPPED: promtool check rules (promtool is not installed: apt-get install prometheus)');
      context.skip();
    }
    const checked = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
    expect(checked.stdout + checked.stderr).toContain('SUCCESS: 8 rules found');
    expect(checked.status).toBe(0);
  });

  it('name only series the service exports', () => {
    const { families, series } = exported();
    const rules = parse(readFileSync(RULES, 'utf8')) as { groups: { rules: { alert: string; expr: string }[] }[] };
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: { title: string; targets: { expr: string }[] }[] };
    const expressions = [
      ...rules.groups.flatMap((group) => group.rules.map((rule) => ({ where: rule.alert, expr: rule.expr }))),
      ...dashboard.panels.flatMap((panel) => panel.targets.map((target) => ({ where: panel.title, expr: target.expr }))),
    ];
    const unknown = expressions.flatMap(({ where, expr }) =>
      namesIn(expr)
        .filter((name) => !series.has(name) && !NOT_YET_EXPORTED.has(name))
        .map((name) => `${where}: ${name}`),
    );
    expect(unknown).toEqual([]);
    // Every family the service exports is on the dashboard.
    const charted = new Set(dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => namesIn(target.expr))));
    const missing = families.filter((family) => ![...charted].some((name) => name === family || name.startsWith(`${family}_`)));
    expect(missing).toEqual([]);
  });
});

describe('rate-limit refusals', () => {
  it('are counted by the limit a bucket belongs to, and attempts that are not refusals are not', () => {
    const refused = { limit: 1, remaining: 0, allowed: false, retryAfter: 1 };
    const allowed = { ...refused, allowed: true };
    expect(limitOf('key:42', refused)).toBe('api');
    expect(limitOf('ip:203.0.113.9', refused)).toBe('api');
    expect(limitOf('page-card:abc', refused)).toBe('payer_forms');
    expect(limitOf('acquirer-ip:203.0.113.9', refused)).toBe('acquirer_notifications');
    expect(limitOf('reset:client:203.0.113.9', refused)).toBe('password_resets');
    expect(limitOf('key:42', allowed)).toBeUndefined();
    // A refused attempt at a member's secret is the one hit of secret:r:, whatever that hit answers.
    expect(limitOf('secret:r:account:203.0.113.9', allowed)).toBe('member_secrets');
    expect(limitOf('secret:ac:account:203.0.113.9:900', refused)).toBeUndefined();
    expect(limitOf('page-declines:link', refused)).toBeUndefined();
  });

  it('reach the counter through the limiter, which still answers as the one it wraps', async () => {
    const counted: string[] = [];
    const limiter = countingRefusals(new MemoryRateLimiter(1), (limit) => counted.push(limit));
    const now = Date.parse('2026-11-28T12:00:00.000Z');
    expect((await limiter.hit('key:7', now)).allowed).toBe(true);
    expect((await limiter.hit('key:7', now)).allowed).toBe(false);
    expect((await limiter.hit('key:8', now)).allowed).toBe(true);
    expect(counted).toEqual(['api']);
    expect(limiter.kind).toBe('memory');
  });
});
