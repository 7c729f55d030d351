// The master key a test's service uses, as the service would load it: SECRETS_KEY on PostgreSQL
// (required there), the key file next to the SQLite file otherwise.
import { loadMasterKey, type SecretsSettings } from '../../server/secrets/key-source.js';
import { MasterKey, parseMasterKey } from '../../server/secrets/master-key.js';

/** Only ever used by the tests. */
export const TEST_SECRETS_KEY = '5f0c3e9a1d7b4c2e8f6a0b3d9c1e7f2a4b8d0c6e2f9a1b7c3d5e8f0a2c4b6d9e';

const isPostgres = (databaseUrl: string) => /^postgres(ql)?:\/\//.test(databaseUrl);

/** Environment for a child process (service or script) on `databaseUrl`. */
export function secretsEnv(databaseUrl: string): Record<string, string> {
  return isPostgres(databaseUrl) ? { SECRETS_KEY: TEST_SECRETS_KEY } : {};
}

/** What startService is given for `databaseUrl`, matching secretsEnv. */
export function secretsSettings(databaseUrl: string): SecretsSettings {
  return isPostgres(databaseUrl) ? { key: new MasterKey(parseMasterKey(TEST_SECRETS_KEY)) } : {};
}

/** The key a service on `databaseUrl`, started with secretsEnv or secretsSettings, seals with. */
export function secretsKeyFor(databaseUrl: string): MasterKey {
  return loadMasterKey(databaseUrl, secretsSettings(databaseUrl)).key;
}
