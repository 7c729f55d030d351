// Every call the service makes to an acquirer, timed and its failures counted, by acquirer and
// operation: the directory the use cases ask for acquirers hands out acquirers whose asynchronous
// methods report to the metrics. A Proxy over our own objects; no library is touched.
import type { ServiceMetrics } from './service-metrics.js';

interface NamedAcquirer {
  readonly name: string;
}

interface Directory<A extends NamedAcquirer> {
  forBusiness(businessId: number): Promise<A>;
  named(businessId: number, name: string): Promise<A>;
}

function timedMethods<A extends NamedAcquirer>(acquirer: A, metrics: ServiceMetrics): A {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(acquirer, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let timed = wrapped.get(property);
      if (!timed) {
        timed = (...args: unknown[]) => {
          const started = performance.now();
          const result: unknown = Reflect.apply(value, target, args);
          // Only what goes out and comes back (a promise) is a call to the acquirer; checks made here answer at once.
          if (!(result instanceof Promise)) return result;
          const seconds = () => (performance.now() - started) / 1000;
          return result.then(
            (answer: unknown) => {
              metrics.acquirerCall(target.name, property, seconds(), false);
              return answer;
            },
            (error: unknown) => {
              metrics.acquirerCall(target.name, property, seconds(), true);
              throw error;
            },
          );
        };
        wrapped.set(property, timed);
      }
      return timed;
    },
  });
}

/** `directory`, handing out timed acquirers (one wrapper per acquirer object, kept while it lives). */
export function timedAcquirers<A extends NamedAcquirer, D extends Directory<A>>(directory: D, metrics: ServiceMetrics): D {
  const timed = new WeakMap<A, A>();
  const wrap = (acquirer: A): A => {
    let proxy = timed.get(acquirer);
    if (!proxy) timed.set(acquirer, (proxy = timedMethods(acquirer, metrics)));
    return proxy;
  };
  return new Proxy(directory, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      if (property === 'forBusiness' || property === 'named') return async (...args: unknown[]) => wrap((await Reflect.apply(value, target, args)) as A);
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
