// Plumbing shared by the property suites: one seed per file (PROPERTY_SEED replays a run), a count of
// the requests the properties sent, and raw requests whose every response is checked against
// openapi.yaml, because the properties send what the typed client would refuse to build.
import fc from 'fast-check';
import { expect } from 'vitest';
import { assertConforms } from '../support/contract.js';
import { raw } from '../support/service.js';

function seedFromEnv(): number {
  const text = process.env.PROPERTY_SEED;
  if (text === undefined || text === '') return (Math.random() * 0x1_0000_0000) | 0;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer, got ${JSON.stringify(text)}`);
  return seed | 0;
}

export const SEED = seedFromEnv();
/**
 * fast-check's counterexample path of one failing property (PROPERTY_NAME), to replay that case at
 * once instead of generating up to it; every other property runs as usual.
 */
const REPLAY = process.env.PROPERTY_PATH ? { name: process.env.PROPERTY_NAME, path: process.env.PROPERTY_PATH } : undefined;

/**
 * fast-check's commands replay path (the counterexample's `replayPath`): a model-based property replays
 * its case from the seed and path only when its commands are told which of them ran, so a property of
 * commands passes this to `fc.commands`.
 */
export const commandsReplayPath = (): { replayPath?: string } => (process.env.PROPERTY_COMMANDS_PATH ? { replayPath: process.env.PROPERTY_COMMANDS_PATH } : {});

let requests = 0;
let generating = false;
/** Requests sent by properties, i.e. generated ones; set-up and seeding requests are not counted. */
export const requestCount = () => requests;

export interface Reply {
  status: number;
  body: unknown;
  text: string;
  headers: Headers;
}

export interface Caller {
  apiUrl: string;
  key: string;
}

/**
 * Sends one request and checks the answer: never a 5xx, and always a status, body and headers that
 * openapi.yaml declares for the operation. `pathAndQuery` is relative to /api and already encoded;
 * `body` is JSON text sent as is.
 */
export async function send(caller: Caller, method: string, pathAndQuery: string, body?: string, extraHeaders: Record<string, string> = {}): Promise<Reply> {
  if (generating) requests += 1;
  const url = `${caller.apiUrl}${pathAndQuery}`;
  const headers: Record<string, string> = { Accept: 'application/json', ...extraHeaders };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await raw(url, { key: caller.key, method, body, headers });
  const where = `${method} ${pathAndQuery}${body === undefined ? '' : ` ${body.length > 600 ? `${body.slice(0, 600)}...` : body}`}`;
  if (response.status >= 500) throw new Error(`${where} -> ${response.status} ${response.text}`);
  await assertConforms({
    method,
    path: new URL(url).pathname,
    status: response.status,
    contentType: response.contentType,
    headers: Object.fromEntries(response.headers.entries()),
    body: response.body,
  });
  return { status: response.status, body: response.body, text: response.text, headers: response.headers };
}

/**
 * JSON text of `body` with a `__proto__` member first. A body whose fields are all optional (a
 * refund's) may be drawn empty, and then takes no comma after that member.
 */
export function withPrototypeMember(body: object, poison: object): string {
  const members = JSON.stringify(body).slice(1, -1);
  return `{"__proto__":${JSON.stringify(poison)}${members ? `,${members}` : ''}}`;
}

/** Whether JSON text has a `__proto__` member at any depth, which the service refuses with a 400. */
export function hasPrototypeMember(json: string): boolean {
  let found = false;
  JSON.parse(json, (key: string, value: unknown) => {
    if (key === '__proto__') found = true;
    return value;
  });
  return found;
}

/** The seed's 422: exactly `{message, errors}`, every field naming at least one message. */
export function validationErrors(reply: Reply, context: string): Record<string, string[]> {
  expect(reply.status, `${context}: ${reply.text}`).toBe(422);
  const body = reply.body as { message: unknown; errors: Record<string, unknown> };
  expect(Object.keys(body).sort(), context).toEqual(['errors', 'message']);
  expect(body.message).toBe('The given data was invalid.');
  expect(Object.keys(body.errors).length, `${context}: 422 without a field`).toBeGreaterThan(0);
  for (const [field, messages] of Object.entries(body.errors)) {
    const texts = Array.isArray(messages) && messages.length > 0 && messages.every((message) => typeof message === 'string' && message.length > 0);
    expect(texts, `${context}: messages of ${field} ${JSON.stringify(messages)}`).toBe(true);
  }
  return body.errors as Record<string, string[]>;
}

/**
 * Runs a property with the file's seed. A failure names the seed and counterexample path in its
 * message, so a red CI log is enough to replay it: PROPERTY_SEED=<seed> npx vitest run test/property.
 */
export async function holds<T>(name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number): Promise<void> {
  generating = true;
  const details = await fc
    .check(
      fc.asyncProperty(arbitrary, async (value) => {
        await predicate(value);
      }),
      { seed: SEED, numRuns, ...(REPLAY?.name === name && { path: REPLAY.path }) },
    )
    .finally(() => {
      generating = false;
    });
  if (!details.failed) return;
  const path = details.counterexamplePath ?? '';
  const commandsPath = /replayPath="([^"]*)"/.exec(fc.stringify(details.counterexample))?.[1];
  const commands = commandsPath === undefined ? '' : ` PROPERTY_COMMANDS_PATH=${JSON.stringify(commandsPath)}`;
  throw new Error(
    `property "${name}" failed. Replay: PROPERTY_SEED=${SEED} npx vitest run test/property ` +
      `(straight to this case: PROPERTY_SEED=${SEED} PROPERTY_NAME=${JSON.stringify(name)} PROPERTY_PATH=${path}${commands} npx vitest run test/property)\n` +
      fc.defaultReportMessage(details) +
      `\nWhat failed: ${details.errorInstance instanceof Error ? (details.errorInstance.stack ?? details.errorInstance.message) : String(details.errorInstance)}`,
    { cause: details.errorInstance },
  );
}
