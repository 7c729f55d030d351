// Starts the service on a database: migrations first, then the HTTP server. Used by main.ts and by
// the tests, which start the real app on 127.0.0.1:0.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './http/app.js';
import { connect, type Db } from './store/db.js';
import { migrateLatest } from './store/migrate.js';

export interface StartOptions {
  databaseUrl: string;
  port: number;
  host: string;
  publicUrl?: string | undefined;
}

export interface RunningService {
  /** Where the server listens, e.g. http://127.0.0.1:41234. */
  url: string;
  publicUrl: string;
  db: Db;
  server: Server;
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
    const app = await createApp({ db, publicUrl });
    server.on('request', app.callback());
    return {
      url,
      publicUrl,
      db,
      server,
      async close() {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}
