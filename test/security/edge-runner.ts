// Sends the edge suite's requests (edge-values.ts) to the service a few at a time, while probing
// /health beside them, and holds the service to what no request may do: answer 5xx, take more than
// 2 s, answer a refusal that is not JSON, or keep /health waiting more than 1 s. A request gets no
// answer past its own time limit: a service that stops answering fails the run within seconds, and
// the run stops there rather than wait on every request left.
import { Agent, fetch } from 'undici';
import type { EdgeRequest } from './edge-values.js';

export const ANSWER_LIMIT_MS = 2_000;
export const HEALTH_LIMIT_MS = 1_000;
/** How long a request is waited for before it counts as unanswered: past the limit, with room to tell late from never. */
const GIVE_UP_MS = ANSWER_LIMIT_MS + 1_000;
const PROBE_EVERY_MS = 100;
/**
 * The runner's own connections, let go after 1 s idle. A kept-alive connection taken for a request
 * just as the service closes it (its keep-alive timeout, 5 s) fails with UND_ERR_SOCKET before the
 * service read anything: the client's race, not the service's silence. fetch's default pool keeps a
 * connection 5 s less a 2 s margin, a margin a loaded test worker's event loop can outrun; at 1 s
 * it would have to fall 4 s behind, longer than a request is waited for.
 */
const connections = new Agent({ keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });

export interface Caller {
  name: string;
  /** The headers that make a request this caller's (a key, or a session cookie and its CSRF token). */
  headers(): Record<string, string>;
  /** Signs in again after an answer ended the session (signing out, a session removed). */
  renew?(): Promise<void>;
}

export interface Sent {
  caller: Caller;
  request: EdgeRequest;
}

export interface RunReport {
  problems: string[];
  /** Requests whose connection closed before any answer, sent again once (see send). */
  resent: string[];
  sent: number;
  statuses: Record<number, number>;
  slowestMs: number;
  slowest: string;
  healthMaxMs: number;
  healthProbes: number;
  ms: number;
}

/** Why fetch gave no answer: a time-out, or what the connection met (fetch's TypeError keeps it as its cause). */
const reason = (error: unknown) => {
  const { name, cause } = error as Error & { cause?: { code?: string; message?: string } };
  return cause ? `${name}: ${cause.code ?? cause.message}` : name;
};

const describe = ({ caller, request }: Sent) =>
  `${caller.name}: ${request.operation.method} ${request.operation.template} [${request.label.slice(0, 80)}] ${request.pathAndQuery.slice(0, 120)}`;

/**
 * Sends every request, `concurrency` at a time, and reports every broken rule. `after` runs once
 * an answer is in (to put back what a request changed that the others rely on). Throws at once if
 * the service stops answering, /health included.
 */
export async function runEdges(
  url: string,
  sends: Sent[],
  options: { concurrency: number; after?: (sent: Sent, status: number) => Promise<void>; oneAtATime?: (sent: Sent) => boolean },
): Promise<RunReport> {
  const report: RunReport = { problems: [], resent: [], sent: 0, statuses: {}, slowestMs: 0, slowest: '', healthMaxMs: 0, healthProbes: 0, ms: 0 };
  const started = performance.now();
  let stopped: Error | undefined;
  let running = true;
  /** What is being answered right now and since when, to say what a stalled service was busy with: the oldest first. */
  const inFlight = new Map<Sent, number>();
  const waitingOn = () => {
    const now = performance.now();
    const busy = [...inFlight].sort(([, a], [, b]) => a - b).map(([sent, since]) => `${describe(sent)} (sent ${Math.round(now - since)} ms before)`);
    return busy.length ? ` while the service was answering: ${busy.join('; ')}` : '';
  };

  const health = async (): Promise<number | Error> => {
    const at = performance.now();
    const signal = AbortSignal.timeout(HEALTH_LIMIT_MS);
    // A kept-alive connection the service closed as it was taken is the client's race, not the service's silence: once more on a new one.
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await fetch(`${url}/health`, { signal, dispatcher: connections });
        await response.arrayBuffer();
        return response.status === 200 ? performance.now() - at : new Error(`/health answered ${response.status}`);
      } catch (error) {
        if (attempt === 1 && !signal.aborted && reason(error).endsWith('UND_ERR_SOCKET')) continue;
        return new Error(`/health gave no answer within ${HEALTH_LIMIT_MS} ms (${reason(error)})`);
      }
    }
  };
  const probing = (async () => {
    while (running && !stopped) {
      const result = await health();
      report.healthProbes += 1;
      if (result instanceof Error) stopped ??= new Error(`the service stopped answering: ${result.message}${waitingOn()}`);
      else {
        report.healthMaxMs = Math.max(report.healthMaxMs, result);
        if (result > HEALTH_LIMIT_MS) report.problems.push(`/health took ${Math.round(result)} ms${waitingOn()}`);
      }
      // eslint-disable-next-line no-restricted-syntax -- paces the health probe beside the requests; the run waits on the requests, not on this
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();

  const renewing = new Map<Caller, Promise<void>>();
  const send = async (sent: Sent) => {
    const { caller, request } = sent;
    const headers: Record<string, string> = { Accept: 'application/json', ...caller.headers(), ...request.headers };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    let at = performance.now();
    let status: number;
    let contentType: string | null;
    inFlight.set(sent, at);
    try {
      for (let attempt = 1; ; attempt += 1) {
        const signal = AbortSignal.timeout(GIVE_UP_MS);
        try {
          const response = await fetch(`${url}${request.pathAndQuery}`, {
            method: request.operation.method,
            headers,
            body: request.body,
            signal,
            dispatcher: connections,
          });
          await response.arrayBuffer();
          status = response.status;
          contentType = response.headers.get('content-type');
          break;
        } catch (error) {
          // A connection closed under a request before any answer: sent once more on another, and said in the
          // report. A service that closes it on purpose (a crash, a request that kills the socket) closes it again.
          if (attempt === 1 && !signal.aborted && reason(error).endsWith('UND_ERR_SOCKET')) {
            report.resent.push(describe(sent));
            at = performance.now();
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      report.problems.push(`no answer within ${GIVE_UP_MS} ms (${reason(error)}): ${describe(sent)}`);
      const busy = waitingOn();
      const result = await health();
      if (result instanceof Error) stopped ??= new Error(`the service stopped answering: ${result.message}${busy}`);
      return;
    } finally {
      inFlight.delete(sent);
    }
    const ms = performance.now() - at;
    report.sent += 1;
    report.statuses[status] = (report.statuses[status] ?? 0) + 1;
    if (ms > report.slowestMs) [report.slowestMs, report.slowest] = [ms, describe(sent)];
    if (status >= 500) report.problems.push(`${status}: ${describe(sent)}`);
    if (ms > ANSWER_LIMIT_MS) report.problems.push(`${Math.round(ms)} ms: ${describe(sent)}`);
    if (status >= 400 && request.operation.method !== 'HEAD' && !contentType?.startsWith('application/json'))
      report.problems.push(`${status} answered as ${contentType}, not JSON: ${describe(sent)}`);
    if (status === 401 && caller.renew) {
      if (!renewing.has(caller))
        renewing.set(
          caller,
          caller.renew().finally(() => renewing.delete(caller)),
        );
      await renewing.get(caller);
    }
    await options.after?.(sent, status);
  };

  // What must not overlap itself goes down one lane, in order; the other lanes take the rest, and so does that one once done.
  const single = sends.filter((sent) => options.oneAtATime?.(sent));
  const queue = sends.filter((sent) => !options.oneAtATime?.(sent));
  const lane = async (first: Sent[]) => {
    for (let next = first.shift(); next && !stopped; next = first.shift()) await send(next);
    for (let next = queue.shift(); next && !stopped; next = queue.shift()) await send(next);
  };
  const lanes = [lane(single), ...Array.from({ length: options.concurrency - 1 }, () => lane([]))];
  try {
    await Promise.all(lanes);
  } finally {
    running = false;
    await probing;
  }
  report.ms = performance.now() - started;
  if (stopped) throw stopped;
  return report;
}

/** The report as one line, for the suite's record of what it sent and how long it took. */
export function summary(name: string, report: RunReport): string {
  const statuses = Object.entries(report.statuses)
    .map(([status, count]) => `${status} x${count}`)
    .join(', ');
  return (
    `${name}: ${report.sent} requests in ${(report.ms / 1000).toFixed(1)} s (${statuses}); slowest ${Math.round(report.slowestMs)} ms (${report.slowest}); ` +
    `/health probed ${report.healthProbes} times, slowest ${Math.round(report.healthMaxMs)} ms` +
    (report.resent.length ? `; sent again after their connection closed unanswered: ${report.resent.join('; ')}` : '')
  );
}
