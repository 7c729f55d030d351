// Starts the service on a database: migrations first, then the HTTP server. Used by main.ts and by
// the tests, which start the real app on 127.0.0.1:0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_OUTBOX, type MailSettings, type OutboxConfig } from './config.js';
import { createApp } from './http/app.js';
import { createDeliverers } from './outbox/deliverers.js';
import { createMailer, type Mailer } from './outbox/mailer.js';
import { OutboxWorker } from './outbox/worker.js';
import type { PaymentProvider } from './payments/provider.js';
import { SandboxProvider } from './payments/sandbox.js';
import { connect, type Db } from './store/db.js';
import { migrateLatest } from './store/migrate.js';

export interface StartOptions {
  databaseUrl: string;
  port: number;
  host: string;
  publicUrl?: string | undefined;
  /** The acquirer; the sandbox unless a test or an adapter supplies another. */
  provider?: PaymentProvider;
  mail?: Partial<MailSettings>;
  outbox?: Partial<OutboxConfig>;
  log?: (line: string) => void;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:41234. */
  url: string;
  publicUrl: string;
  db: Db;
  server: Server;
  mailer: Mailer;
  /** Present when this instance delivers the outbox. */
  worker: OutboxWorker | undefined;
  close(): Promise<void>;
}

export async function startService(options: StartOptions): Promise<RunningService> {
  const db = connect(options.databaseUrl);
  try {
    await migrateLatest(db);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const localHost = options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
    const url = `http://${localHost}:${port}`;
    const publicUrl = options.publicUrl ?? url;
    const outboxConfig = { ...DEFAULT_OUTBOX, ...options.outbox };
    const mailer = createMailer({ smtpUrl: undefined, from: 'Payment Collection Service <no-reply@localhost>', mailDir: './data/mail', ...options.mail });
    const deliverers = createDeliverers(db, mailer, { webhookTimeoutMs: outboxConfig.webhookTimeoutMs, serviceUrls: [url, publicUrl] });
    const worker = outboxConfig.worker ? new OutboxWorker(db, deliverers, { ...outboxConfig, log: options.log ?? ((line) => console.error(line)) }) : undefined;
    const app = await createApp({ db, publicUrl, provider: options.provider ?? new SandboxProvider(), outbox: { nudge: () => worker?.nudge() } });
    server.on('request', app.callback());
    worker?.start();
    return {
      url,
      publicUrl,
      db,
      server,
      mailer,
      worker,
      async close() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await worker?.stop();
        mailer.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
