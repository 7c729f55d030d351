// A business as its payers see it (`migrations/0035_business_profile.ts`): the name and brand on its pages and e-mails, how
// to reach it, its time zone and its payers' default language; the logo's bytes in `business_logos`.
import type { Executor } from './executor.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export interface BusinessProfileRecord {
  id: number;
  name: string;
  display_name: string | null;
  brand_color: string | null;
  support_email: string | null;
  support_phone: string | null;
  website_url: string | null;
  time_zone: string | null;
  default_locale: string | null;
  profile_updated_at: string | null;
  /** The logo's type and digest, without its bytes; null without a logo. */
  logo: { content_type: string; sha256: string } | null;
}

export type ProfileFields = Partial<
  Pick<BusinessProfileRecord, 'name' | 'display_name' | 'brand_color' | 'support_email' | 'support_phone' | 'website_url' | 'time_zone' | 'default_locale'>
>;

interface Row extends Omit<BusinessProfileRecord, 'logo' | 'profile_updated_at'> {
  profile_updated_at: string | Date | null;
  logo_type: string | null;
  logo_sha256: string | null;
}

export async function findBusinessProfile(db: Executor, businessId: number): Promise<BusinessProfileRecord | undefined> {
  const row = await db.first<Row>(
    db
      .sql('businesses as b')
      // A logo not yet drawn again by the service is none at all to payers and the API.
      .leftJoin('business_logos as l', function () {
        this.on('l.business_id', '=', 'b.id').andOn('l.redrawn', '=', db.sql.raw('?', [true]));
      })
      .select(
        'b.id',
        'b.name',
        'b.display_name',
        'b.brand_color',
        'b.support_email',
        'b.support_phone',
        'b.website_url',
        'b.time_zone',
        'b.default_locale',
        'b.profile_updated_at',
        'l.content_type as logo_type',
        'l.sha256 as logo_sha256',
      )
      .where('b.id', businessId),
  );
  if (!row) return undefined;
  const { logo_type, logo_sha256, profile_updated_at, ...rest } = row;
  return {
    ...rest,
    id: Number(rest.id),
    profile_updated_at: profile_updated_at ? toIsoMicros(profile_updated_at) : null,
    logo: logo_type && logo_sha256 ? { content_type: logo_type, sha256: logo_sha256 } : null,
  };
}

/** The business's time zone as chosen (null: the default, domain/local-days.ts), without the rest of its profile. */
export async function findBusinessTimeZone(db: Executor, businessId: number): Promise<string | null> {
  const row = await db.first<{ time_zone: string | null }>(db.sql('businesses').select('time_zone').where({ id: businessId }));
  return row?.time_zone ?? null;
}

export async function updateBusinessProfile(db: Executor, businessId: number, fields: ProfileFields): Promise<void> {
  await db.run(
    db
      .sql('businesses')
      .where({ id: businessId })
      .update({ ...fields, profile_updated_at: nowIso() }),
  );
}

export async function putBusinessLogo(db: Executor, businessId: number, logo: { content_type: string; sha256: string; bytes: Buffer }): Promise<void> {
  const at = nowIso();
  await db.run(
    db
      .sql('business_logos')
      .insert({ business_id: businessId, ...logo, redrawn: true, created_at: at })
      .onConflict('business_id')
      .merge(['content_type', 'sha256', 'bytes', 'redrawn', 'created_at']),
  );
  await db.run(db.sql('businesses').where({ id: businessId }).update({ profile_updated_at: at }));
}

/** Whether there was a logo to remove. */
export async function deleteBusinessLogo(db: Executor, businessId: number): Promise<boolean> {
  const removed = await db.run(db.sql('business_logos').where({ business_id: businessId }).delete());
  if (removed > 0) await db.run(db.sql('businesses').where({ id: businessId }).update({ profile_updated_at: nowIso() }));
  return removed > 0;
}

export async function findBusinessLogo(db: Executor, businessId: number): Promise<{ content_type: string; sha256: string; bytes: Buffer } | undefined> {
  const row = await db.first<{ content_type: string; sha256: string; bytes: Buffer | Uint8Array }>(
    db.sql('business_logos').select('content_type', 'sha256', 'bytes').where({ business_id: businessId, redrawn: true }),
  );
  return row ? { ...row, bytes: Buffer.from(row.bytes) } : undefined;
}

/** A few of the logos kept as they were uploaded, before the service drew every logo again. */
export async function findLogosNotRedrawn(db: Executor, limit: number): Promise<{ businessId: number; contentType: string; sha256: string; bytes: Buffer }[]> {
  const rows = await db.all<{ business_id: number; content_type: string; sha256: string; bytes: Buffer | Uint8Array }>(
    db.sql('business_logos').select('business_id', 'content_type', 'sha256', 'bytes').where({ redrawn: false }).orderBy('business_id').limit(limit),
  );
  return rows.map((row) => ({ businessId: Number(row.business_id), contentType: row.content_type, sha256: row.sha256, bytes: Buffer.from(row.bytes) }));
}

/**
 * Replaces a logo kept as uploaded (`was`, its digest) by the service's drawing of it, or removes it
 * (`drawn` null) when it does not decode; a logo uploaded meanwhile is left alone.
 */
export async function settleLogoNotRedrawn(
  db: Executor,
  businessId: number,
  was: string,
  drawn: { content_type: string; sha256: string; bytes: Buffer } | null,
): Promise<void> {
  const still = db.sql('business_logos').where({ business_id: businessId, sha256: was, redrawn: false });
  if (drawn) await db.run(still.update({ ...drawn, redrawn: true }));
  else if ((await db.run(still.delete())) > 0) await db.run(db.sql('businesses').where({ id: businessId }).update({ profile_updated_at: nowIso() }));
}

const LOCALE_TABLES = { payment_link: 'payment_links', open_payment_link: 'open_payment_links', tokenization: 'tokens' } as const;

/** The language a link's or token's payer is expected to read, when the merchant said. */
export async function findTargetLocale(db: Executor, kind: keyof typeof LOCALE_TABLES, id: string): Promise<string | null> {
  const row = await db.first<{ locale: string | null }>(db.sql(LOCALE_TABLES[kind]).select('locale').where({ _id: id }));
  return row?.locale ?? null;
}
