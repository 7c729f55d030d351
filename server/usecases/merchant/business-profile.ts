// The business profile (GET/PATCH /api/business, PUT/DELETE /api/business/logo) and what payers are
// shown of it: the merchant's name, logo and brand on every payer page and e-mail.
import { createHash } from 'node:crypto';
import { LOGO_MAX_SIDE, brandColours, sniffLogoType, type LogoType } from '../../domain/brand.js';
import { DEFAULT_TIME_ZONE } from '../../domain/local-days.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../../domain/locales.js';
import { logoPath } from '../../domain/payer-urls.js';
import {
  deleteBusinessLogo,
  findBusinessLogo,
  findLogosNotRedrawn,
  settleLogoNotRedrawn,
  findBusinessProfile,
  putBusinessLogo,
  updateBusinessProfile,
  type BusinessProfileRecord,
  type ProfileFields,
} from '../../store/business-profile.js';
import { isUniqueViolation } from '../../store/errors.js';
import type { Executor } from '../../store/executor.js';
import type { UseCaseContext } from '../platform/context.js';
import { redrawLogo } from './logo-image.js';

export interface BusinessProfile {
  id: number;
  name: string;
  displayName: string;
  logo: { url: string; contentType: string } | null;
  brandColor: string | null;
  buttonTextColor: string | null;
  supportEmail: string | null;
  supportPhone: string | null;
  websiteUrl: string | null;
  timeZone: string;
  defaultLocale: Locale;
  updatedAt: string | null;
}

/** What a payer page or e-mail shows of the merchant. */
export interface Merchant {
  name: string;
  /** From the site's root; null without a logo. */
  logoPath: string | null;
  brand: { colour: string; text: string } | null;
  supportEmail: string | null;
  supportPhone: string | null;
  /** The merchant's website, where a payer is led back to when the link names no redirect_url. */
  websiteUrl: string | null;
  timeZone: string;
  defaultLocale: Locale | null;
}

function present(ctx: UseCaseContext, record: BusinessProfileRecord): BusinessProfile {
  const brand = record.brand_color ? brandColours(record.brand_color) : undefined;
  return {
    id: record.id,
    name: record.name,
    displayName: record.display_name ?? record.name,
    logo: record.logo ? { url: `${ctx.publicUrl}${logoPath(record.id, record.logo.sha256)}`, contentType: record.logo.content_type } : null,
    brandColor: brand?.ok ? brand.colour : null,
    buttonTextColor: brand?.ok ? brand.text : null,
    supportEmail: record.support_email,
    supportPhone: record.support_phone,
    websiteUrl: record.website_url,
    timeZone: record.time_zone ?? DEFAULT_TIME_ZONE,
    defaultLocale: isLocale(record.default_locale) ? record.default_locale : DEFAULT_LOCALE,
    updatedAt: record.profile_updated_at,
  };
}

export function merchantOf(record: BusinessProfileRecord): Merchant {
  const brand = record.brand_color ? brandColours(record.brand_color) : undefined;
  return {
    name: record.display_name ?? record.name,
    logoPath: record.logo ? logoPath(record.id, record.logo.sha256) : null,
    brand: brand?.ok ? { colour: brand.colour, text: brand.text } : null,
    supportEmail: record.support_email,
    supportPhone: record.support_phone,
    websiteUrl: record.website_url,
    timeZone: record.time_zone ?? DEFAULT_TIME_ZONE,
    defaultLocale: isLocale(record.default_locale) ? record.default_locale : null,
  };
}

/** The merchant as payers see it; a business that no longer exists is shown by the service's name. */
export async function merchantFor(db: Executor, businessId: number): Promise<Merchant> {
  const record = await findBusinessProfile(db, businessId);
  if (record) return merchantOf(record);
  return {
    name: 'A merchant',
    logoPath: null,
    brand: null,
    supportEmail: null,
    supportPhone: null,
    websiteUrl: null,
    timeZone: DEFAULT_TIME_ZONE,
    defaultLocale: null,
  };
}

export async function getBusinessProfile(ctx: UseCaseContext, businessId: number): Promise<BusinessProfile> {
  return present(ctx, (await findBusinessProfile(ctx.db, businessId))!);
}

export type ProfileChange = ProfileFields;

export type ProfileOutcome = { outcome: 'saved'; profile: BusinessProfile } | { outcome: 'invalid'; errors: Record<string, string[]> };

/** Business names are unique on the service (the operator's commands find a business by its name). */
const NAME_TAKEN = 'The name has already been taken.';

export async function changeBusinessProfile(ctx: UseCaseContext, businessId: number, change: ProfileChange): Promise<ProfileOutcome> {
  const fields: ProfileFields = { ...change };
  if (typeof fields.brand_color === 'string') {
    const brand = brandColours(fields.brand_color);
    if (brand.ok) fields.brand_color = brand.colour;
  }
  const before = await findBusinessProfile(ctx.db, businessId);
  try {
    // A savepoint: on PostgreSQL a statement that fails ends the request's transaction unless it was in one.
    await ctx.db.transaction((tx) => updateBusinessProfile(tx, businessId, fields));
  } catch (error) {
    if (fields.name !== undefined && isUniqueViolation(error)) return { outcome: 'invalid', errors: { name: [NAME_TAKEN] } };
    throw error;
  }
  const changed = Object.entries(fields).filter(([field, value]) => value !== undefined && before?.[field as keyof ProfileFields] !== value);
  if (changed.length > 0)
    ctx.audit?.note({
      changed_fields: changed.map(([field]) => field),
      ...Object.fromEntries(
        changed.flatMap(([field, value]) => [
          [`old_${field}`, auditValue(before?.[field as keyof ProfileFields])],
          [`new_${field}`, auditValue(value)],
        ]),
      ),
    });
  return { outcome: 'saved', profile: await getBusinessProfile(ctx, businessId) };
}

function auditValue(value: unknown): string | number | boolean | null {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? value : null;
}

export type LogoOutcome = { outcome: 'saved'; profile: BusinessProfile } | { outcome: 'invalid'; errors: Record<string, string[]> };

const LOGO_PROBLEMS = {
  type: 'The image must be a file of type: png, jpeg, webp.',
  unreadable: 'The image could not be read: it must be a whole png, jpeg or webp file.',
  'too-large': `The image must be at most ${LOGO_MAX_SIDE} pixels wide and ${LOGO_MAX_SIDE} pixels high.`,
};

/** The logo as its bytes' type says, decoded and drawn again (logo-image.ts): what is kept and served is never the upload itself. */
export async function setBusinessLogo(ctx: UseCaseContext, businessId: number, upload: Buffer): Promise<LogoOutcome> {
  const type: LogoType | undefined = sniffLogoType(upload);
  if (!type) return { outcome: 'invalid', errors: { image: [LOGO_PROBLEMS.type] } };
  const image = await redrawLogo(upload, type);
  if (!image.ok) return { outcome: 'invalid', errors: { image: [LOGO_PROBLEMS[image.problem]] } };
  const sha256 = createHash('sha256').update(image.bytes).digest('hex');
  await ctx.db.transaction((tx) => putBusinessLogo(tx, businessId, { content_type: type, sha256, bytes: image.bytes }));
  return { outcome: 'saved', profile: await getBusinessProfile(ctx, businessId) };
}

export async function removeBusinessLogo(ctx: UseCaseContext, businessId: number): Promise<BusinessProfile> {
  await ctx.db.transaction((tx) => deleteBusinessLogo(tx, businessId));
  return getBusinessProfile(ctx, businessId);
}

/**
 * Logos uploaded before the service drew every logo again are drawn now, a few at a time (or removed
 * when they do not decode, said to `log`): until then they are not served. How many were redrawn and removed.
 */
export async function redrawLogosKeptAsUploaded(
  ctx: Pick<UseCaseContext, 'db'>,
  log: (fields: Record<string, unknown>, message: string) => void,
): Promise<{ redrawn: number; removed: number }> {
  const done = { redrawn: 0, removed: 0 };
  for (let batch = await findLogosNotRedrawn(ctx.db, 20); batch.length > 0; batch = await findLogosNotRedrawn(ctx.db, 20)) {
    for (const logo of batch) {
      const type = sniffLogoType(logo.bytes);
      const image = type ? await redrawLogo(logo.bytes, type) : ({ ok: false } as const);
      if (image.ok) {
        const sha256 = createHash('sha256').update(image.bytes).digest('hex');
        await settleLogoNotRedrawn(ctx.db, logo.businessId, logo.sha256, { content_type: type!, sha256, bytes: image.bytes });
        done.redrawn += 1;
      } else {
        await settleLogoNotRedrawn(ctx.db, logo.businessId, logo.sha256, null);
        log(
          { business_id: logo.businessId },
          'removed a logo uploaded before logos were drawn again: it is not a whole image; the business can upload it again',
        );
        done.removed += 1;
      }
    }
  }
  return done;
}

/** A logo as its address names it: the business's current logo, only while its digest still matches. */
export async function logoForPayer(ctx: UseCaseContext, businessId: number, shaPrefix: string): Promise<{ contentType: string; bytes: Buffer } | undefined> {
  const logo = await findBusinessLogo(ctx.db, businessId);
  if (!logo || !logo.sha256.startsWith(shaPrefix)) return undefined;
  return { contentType: logo.content_type, bytes: logo.bytes };
}

/** For a payer page of a payment or token already read: the merchant it belongs to. */
export async function merchantForPayer(ctx: UseCaseContext, businessId: number): Promise<Merchant> {
  return merchantFor(ctx.db, businessId);
}
