// The one place a suite's service is started and stopped: `useStarted` registers the beforeAll that
// starts it and the afterAll that closes it, in the describe block (or file) it is called in, and
// answers a handle that stands for the running service in between. A file writes one line,
// `const t = useService()`, and its helpers and tests read `t.a.client` as before.
import { afterAll, afterEach, beforeAll } from 'vitest';

export interface Closable {
  close(): Promise<void>;
}

/**
 * Stands for what `get` answers when a property is read, for objects that exist only once a hook
 * has run. Methods of a class (on its prototype) are bound to it, so private fields still work.
 */
export function lazy<T extends object>(get: () => T | undefined, what = 'the service'): T {
  return new Proxy({} as T, {
    get(_target, property) {
      const current = get();
      if (!current) throw new Error(`${what} runs from beforeAll to afterAll: ${String(property)} was read outside them`);
      const value = Reflect.get(current, property) as unknown;
      return typeof value === 'function' && !Object.hasOwn(current, property) ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
  });
}

export function useStarted<T extends Closable>(start: () => Promise<T>, timeoutMs?: number): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  }, timeoutMs);
  // After hooks run in reverse order of registration: whatever a file started before its service
  // (a stand-in, a receiver) is still there while the service closes.
  afterAll(async () => {
    const started = current;
    current = undefined;
    await started?.close();
  });
  return lazy(() => current);
}

/**
 * For files whose tests each start their own, with options of their own: `start` as given, and
 * whatever it started in a test closed after that test, passed or failed.
 */
export function startedPerTest<A extends unknown[], T extends Closable>(start: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  const started: T[] = [];
  afterEach(async () => {
    for (const each of started.splice(0).reverse()) await each.close();
  });
  return async (...args) => {
    const each = await start(...args);
    started.push(each);
    return each;
  };
}

/** Starts something for one test only and closes it whatever the test does. */
export async function withStarted<T extends Closable, R>(start: () => Promise<T>, work: (started: T) => Promise<R>): Promise<R> {
  const started = await start();
  try {
    return await work(started);
  } finally {
    await started.close();
  }
}
