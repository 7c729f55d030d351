// The libraries the service loads on first use rather than at start-up (so start-up stays short, and
// an instance that never exports or draws a QR code needs none of them) are loaded in the background
// once it listens, one to a turn of the event loop. Requiring one runs its whole module graph on the
// event loop in one go (tens of milliseconds, over a hundred for undici): left to first use, that falls
// on the request that needs it and on every other business's request queued behind it.
import { setImmediate } from 'node:timers/promises';

/** A library's name and the loader its own module uses, which caches it (require's and import()'s caches). */
export type LibraryLoaders = Record<string, () => unknown>;

/** Loads each library in turn, yielding to the event loop between them; a library that fails to load is reported and skipped. */
export async function loadLibraries(loaders: LibraryLoaders, options: { signal?: AbortSignal; failed(name: string, error: unknown): void }): Promise<string[]> {
  const loaded: string[] = [];
  for (const [name, load] of Object.entries(loaders)) {
    await setImmediate();
    if (options.signal?.aborted) break;
    try {
      await load();
      loaded.push(name);
    } catch (error) {
      options.failed(name, error);
    }
  }
  return loaded;
}
