// Latency percentiles and the per-window record of a soak.
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))]!;
}

export function summarize(latencies: readonly number[]): { count: number; p50: number; p90: number; p99: number; max: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 100) / 100;
  return {
    count: sorted.length,
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.at(-1) ?? 0),
  };
}

export type Kind = 'create' | 'get' | 'list' | 'payment';

export class Window {
  started = 0;
  done = 0;
  errors = 0;
  http = 0;
  readonly latencies: number[] = [];
  readonly byKind = new Map<Kind, number[]>();
  rssBytes: number | undefined;
  /** The server's CPU use over the window, in percent of one core. */
  cpuPercent: number | undefined;
  /** Time the server was ready to run but had no CPU (other processes had it), in percent of the window. */
  cpuWaitPercent: number | undefined;
  printed = false;

  constructor(
    readonly index: number,
    readonly fromSeconds: number,
    readonly toSeconds: number,
  ) {}

  record(kind: Kind, latencyMs: number, ok: boolean, http: number): void {
    this.done += 1;
    this.http += http;
    if (!ok) this.errors += 1;
    this.latencies.push(latencyMs);
    let list = this.byKind.get(kind);
    if (!list) this.byKind.set(kind, (list = []));
    list.push(latencyMs);
  }

  toJSON() {
    return {
      from_s: this.fromSeconds,
      to_s: this.toSeconds,
      operations: this.done,
      http_requests: this.http,
      errors: this.errors,
      latency_ms: summarize(this.latencies),
      by_kind: Object.fromEntries([...this.byKind].map(([kind, latencies]) => [kind, summarize(latencies)])),
      rss_mb: this.rssBytes === undefined ? null : mb(this.rssBytes),
      server_cpu_percent: this.cpuPercent ?? null,
      server_cpu_wait_percent: this.cpuWaitPercent ?? null,
    };
  }
}

export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
