// Posts bodies too large for the service, one after another, from a process of its own (the service's
// event loop must not pace the client's writes, as it would in the test's process), and prints what
// each post ended with as one JSON line: the status and body read, or the network error.
//   node --import tsx test/support/oversized-posts.ts <fetch|client> <url> <api key or -> <count> <bytes>
import { createPaymentsClient } from '../../client/index.js';

export type PostOutcome = { status: number; body: unknown } | { error: string };

const [how, url, key, count, bytes] = process.argv.slice(2) as [string, string, string, string, string];
const body = JSON.stringify({ title: 'Too large', padding: 'a'.repeat(Number(bytes)) });
const headers: Record<string, string> = { 'content-type': 'application/json', ...(key === '-' ? {} : { authorization: `Bearer ${key}` }) };

function failure(error: unknown): PostOutcome {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return { error: cause?.code ?? cause?.message ?? String(error) };
}

async function withFetch(): Promise<PostOutcome> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, body: await response.json() };
}

/** The merchants' client: `url` is the API base, and the post goes to /payment-links. */
async function withClient(): Promise<PostOutcome> {
  const client = createPaymentsClient({ baseUrl: url, apiKey: key });
  // Not a valid payment link: its size is what is answered.
  const { response, error } = await client.POST('/payment-links', { body: JSON.parse(body) as never });
  return { status: response.status, body: error };
}

const outcomes: PostOutcome[] = [];
for (let i = 0; i < Number(count); i += 1) outcomes.push(await (how === 'client' ? withClient() : withFetch()).catch(failure));
console.log(JSON.stringify(outcomes));
