// The business profile (GET/PATCH /api/business, PUT/DELETE /api/business/logo) and what payers are
// shown of it: the merchant's name, logo and brand on every payer page and e-mail.
import { createHash } from 'node:crypto';
import { brandColours, sniffLogoType, type LogoType } from '../domain/brand.js';
import { DEFAULT_TIME_ZONE } from '../domain/local-days.js';
import { DEFAULT_LOCALE, isLocale, type Locale } from '../domain/locales.js';
import { logoPath } from '../domain/payer-urls.js';
import {
  deleteBusinessLogo,
  findBusinessLogo,
  findBusinessProfile,
  putBusinessLogo,
  updateBusinessProfile,
  type BusinessProfileRecord,
  type ProfileFields,
} from '../store/business-profile.js';
import type { Executor } from '../store/executor.js';
import type { UseCaseContext } from './context.js';

export interface BusinessProfile {
  id: number;
  name: string;
  displayName: string;
  logo: { url: string; contentType: string } | null;
  brandColor: string | null;
  buttonTextColor: string | null;
  supportEmail: string | null;
  supportPhone: string | null;
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
    timeZone: record.time_zone ?? DEFAULT_TIME_ZONE,
    defaultLocale: isLocale(record.default_locale) ? record.default_locale : null,
  };
}

/** The merchant as payers see it; a business that no longer exists is shown by the service's name. */
export async function merchantFor(db: Executor, businessId: number): Promise<Merchant> {
  const record = await findBusinessProfile(db, businessId);
  if (record) return merchantOf(record);
  return { name: 'A merchant', logoPath: null, brand: null, supportEmail: null, supportPhone: null, timeZone: DEFAULT_TIME_ZONE, defaultLocale: null };
}

export async function getBusinessProfile(ctx: UseCaseContext, businessId: number): Promise<BusinessProfile> {
  return present(ctx, (await findBusinessProfile(ctx.db, businessId))!);
}

export type ProfileChange = ProfileFields;

export async function changeBusinessProfile(ctx: UseCaseContext, businessId: number, change: ProfileChange): Promise<BusinessProfile> {
  const fields: ProfileFields = { ...change };
  if (typeof fields.brand_color === 'string') {
    const brand = brandColours(fields.brand_color);
    if (brand.ok) fields.brand_color = brand.colour;
  }
  await updateBusinessProfile(ctx.db, businessId, fields);
  return getBusinessProfile(ctx, businessId);
}

export type LogoOutcome = { outcome: 'saved'; profile: BusinessProfile } | { outcome: 'invalid'; errors: Record<string, string[]> };

export async function setBusinessLogo(ctx: UseCaseContext, businessId: number, bytes: Buffer): Promise<LogoOutcome> {
  const type: LogoType | undefined = sniffLogoType(bytes);
  if (!type) return { outcome: 'invalid', errors: { image: ['The image must be a file of type: png, jpeg, webp.'] } };
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  await ctx.db.transaction((tx) => putBusinessLogo(tx, businessId, { content_type: type, sha256, bytes }));
  return { outcome: 'saved', profile: await getBusinessProfile(ctx, businessId) };
}

export async function removeBusinessLogo(ctx: UseCaseContext, businessId: number): Promise<BusinessProfile> {
  await ctx.db.transaction((tx) => deleteBusinessLogo(tx, businessId));
  return getBusinessProfile(ctx, businessId);
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
