// `npm run stripe-standin -- --forward-to <url>` as a newcomer runs it: it says where it listens and
// the secret it signs with, forwards events there, serves its control page, and stops on SIGTERM.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, startReceiver, type Receiver } from './support/receiver.js';
import { waitFor } from './support/wait.js';

const PACKAGE = join(import.meta.dirname, '..');

let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

describe('the stripe-standin command', () => {
  it('forwards every account’s events signed with the secret it prints, and stops on SIGTERM', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--port', String(port), '--forward-to', receiver.url], {
      cwd: PACKAGE,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(`the stand-in to listen (output so far: ${output})`, () => output.includes('Webhooks:'), 30_000);
      expect(output).toContain(`Stripe stand-in listening on http://127.0.0.1:${port}`);
      expect(output).toContain(`host: '127.0.0.1', port: ${port}, protocol: 'http'`);
      const secret = /signed with (whsec_[0-9a-f]+)/.exec(output)![1]!;

      const stripe = new Stripe('sk_test_cli', { host: '127.0.0.1', port, protocol: 'http', maxNetworkRetries: 0 });
      const customer = await stripe.customers.create({ email: 'newcomer@example.com' });
      const request = await waitFor('the event to arrive', () => receiver.requests[0]);
      const event = stripe.webhooks.constructEvent(request.raw, request.headers['stripe-signature'] as string, secret);
      expect(event).toMatchObject({ type: 'customer.created', data: { object: { id: customer.id } } });
      const control = await fetch(`http://127.0.0.1:${port}/_standin/`);
      expect(control.status).toBe(200);
      expect(await control.text()).toContain('customer.created');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });
});
