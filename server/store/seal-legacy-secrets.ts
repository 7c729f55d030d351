// A data migration that needs the secrets key, which schema migrations run without: the webhook
// keys that versions before sealing stored in clear are sealed, once, at start and in the scripts.
// It runs on a connection of its own, like the migrations, before the service uses the database.
import type { Knex } from 'knex';
import type { MasterKey } from '../secrets/master-key.js';
import { sealSecret } from '../secrets/seal.js';
import { webhookSecretContext } from './webhook-endpoints.js';
import { knexFor } from './database.js';

/**
 * On SQLite, runs `work` with freed space zeroed and then empties the write-ahead log, so text that
 * `work` replaces leaves no copy in the database files. (On PostgreSQL, vacuum reclaims old row versions.)
 */
async function wipingReplacedText<T>(db: Knex, work: () => Promise<T>): Promise<T> {
  if (db.client.config.client === 'pg') return work();
  const [{ secure_delete: before }] = (await db.raw('PRAGMA secure_delete')) as [{ secure_delete: number }];
  await db.raw('PRAGMA secure_delete = ON');
  try {
    return await work();
  } finally {
    await db.raw(`PRAGMA secure_delete = ${before ? 'ON' : 'OFF'}`);
    await db.raw('PRAGMA wal_checkpoint(TRUNCATE)');
  }
}

/**
 * Seals every webhook key still stored in clear. Each row is replaced only if it still holds the
 * value read, so a key set meanwhile is never overwritten. Resolves with how many keys it sealed.
 */
export async function sealLegacyWebhookSecrets(databaseUrl: string, key: MasterKey): Promise<number> {
  const db = knexFor(databaseUrl);
  try {
    // `migrations/0016_webhook_endpoints.ts` moved each business's key, as it was stored, into its first endpoint.
    const legacy: { id: number; business_id: number; secret: string }[] = await db('webhook_endpoints')
      .select('id', 'business_id', 'secret')
      .whereNot('secret', 'like', 'v1:%');
    if (legacy.length === 0) return 0;
    return await wipingReplacedText(db, async () => {
      let sealed = 0;
      for (const row of legacy) {
        sealed += await db('webhook_endpoints')
          .where({ id: row.id, secret: row.secret })
          .update({ secret: sealSecret(key, row.secret, webhookSecretContext(Number(row.business_id))) });
      }
      return sealed;
    });
  } finally {
    await db.destroy();
  }
}
