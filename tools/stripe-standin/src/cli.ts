// Runs the Stripe stand-in on 127.0.0.1 for trying the service by hand (from the repository's root,
// or `npm start --` in this package):
//
//   npm run stripe-standin -- [--port 12111] [--forward-to <url> [--webhook-secret whsec_...]] [--hold-webhooks]
//
// Like `stripe listen --forward-to`, events of every account are POSTed to the URL, signed with the
// secret (one is made up and printed if none is given). /_standin/ shows what happened and has
// buttons to deliver events and to give a bank's later answer.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startStripeStandin } from './server.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '12111' },
    'forward-to': { type: 'string' },
    'webhook-secret': { type: 'string' },
    'hold-webhooks': { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number, not ${values.port}`);
  process.exit(2);
}
const url = values['forward-to'];
const secret = values['webhook-secret'] ?? (url ? `whsec_${randomBytes(24).toString('hex')}` : undefined);

const standin = await startStripeStandin({ port, hold: values['hold-webhooks'], ...(url && secret ? { forwardTo: { url, secret } } : {}) });

console.log(`Stripe stand-in listening on ${standin.url}
  Point the Stripe SDK at it: new Stripe('sk_test_<anything>', { host: '127.0.0.1', port: ${standin.sdkOptions.port}, protocol: 'http' })
  (each secret key starting sk_test_ is an account of its own; other keys are refused)
  Control page (events, deliveries, settling FPX payments): ${standin.url}/_standin/
  Webhooks: ${url ? `forwarded to ${url}, signed with ${secret}${values['hold-webhooks'] ? ' (held: deliver them from the control page)' : ''}` : 'not forwarded (give --forward-to <url> --webhook-secret <whsec_...>)'}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void standin.close().then(() => process.exit(0));
  });
}
