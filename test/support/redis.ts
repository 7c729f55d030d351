// The Redis the Redis suites count in (TEST_REDIS_URL, or 127.0.0.1:6379, which .ci/run starts), and
// whether it answers: without one, those suites report themselves skipped instead of failing.
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether a Redis answers at `url`, asked once, within a second, without retrying. */
export async function redisAnswers(url = REDIS_URL): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
