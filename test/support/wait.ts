/** Polls until `check` returns something truthy, or fails after `timeoutMs` saying what it waited for. */
type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

export async function waitFor<T>(what: string, check: () => T | Promise<T>, timeoutMs = 10_000): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
