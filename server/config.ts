import { DEFAULT_DATABASE_URL } from './store/db.js';

export interface Config {
  databaseUrl: string;
  port: number;
  host: string;
  /** Base of the URLs we hand out; defaults to the server's own address once it listens. */
  publicUrl: string | undefined;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT must be an integer from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
  let publicUrl: string | undefined;
  if (env.PUBLIC_URL) {
    let url: URL;
    try {
      url = new URL(env.PUBLIC_URL);
    } catch {
      throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got ${JSON.stringify(env.PUBLIC_URL)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`PUBLIC_URL must be an http(s) URL, got ${JSON.stringify(env.PUBLIC_URL)}`);
    publicUrl = env.PUBLIC_URL.replace(/\/+$/, '');
  }
  return { databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL, port, host: env.HOST || '0.0.0.0', publicUrl };
}
