// The business profile: what payers are shown of the business, and its logo; and its acquirer.
import type { components } from '../../generated/openapi.js';
import { LOGO_MAX_BYTES, brandColours } from '../domain/brand.js';
import type { FieldErrors } from '../domain/rules.js';
import type { SomeHandlers } from '../http/operations.js';
import {
  changeBusinessProfile,
  getBusinessProfile,
  removeBusinessLogo,
  setBusinessLogo,
  type BusinessProfile,
  type ProfileChange,
} from '../usecases/merchant/business-profile.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { acquirerSecretErrors, changeAcquirer, getAcquirer, type AcquirerView } from '../usecases/merchant/acquirer-settings.js';
import { ok } from './envelope.js';

type BusinessUpdate = components['schemas']['BusinessUpdate'];

function presentAcquirer(view: AcquirerView): components['schemas']['AcquirerSettings'] {
  return {
    acquirer: view.acquirer,
    mode: view.mode,
    stripe_key_hint: view.stripeKeyHint,
    stripe_webhook_secret_set: view.stripeWebhookSecretSet,
    stripe_webhook_url: view.stripeWebhookUrl,
  };
}

function present(profile: BusinessProfile): components['schemas']['Business'] {
  return {
    id: profile.id,
    name: profile.name,
    display_name: profile.displayName,
    logo: profile.logo ? { url: profile.logo.url, content_type: profile.logo.contentType as 'image/png' } : null,
    brand_color: profile.brandColor,
    button_text_color: profile.buttonTextColor,
    support_email: profile.supportEmail,
    support_phone: profile.supportPhone,
    website_url: profile.websiteUrl,
    time_zone: profile.timeZone,
    default_locale: profile.defaultLocale,
    updated_at: profile.updatedAt,
  };
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[name] : undefined;
}

/** A business name of digits alone would read as a business_id to the operator's commands (`--business <id or name>`). */
export function businessNameRule(body: unknown): FieldErrors {
  const value = field(body, 'name');
  return typeof value === 'string' && /^\d+$/.test(value) ? { name: ['The name must not be a number alone.'] } : {};
}

/** A brand colour the schema accepted the shape of, judged for contrast. */
export function brandColorRule(body: unknown): FieldErrors {
  const value = field(body, 'brand_color');
  if (typeof value !== 'string' || !/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(value)) return {};
  const brand = brandColours(value);
  return brand.ok ? {} : { brand_color: [brand.reason] };
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value.includes('/') || value === 'UTC';
  } catch {
    return false;
  }
}

export function timeZoneRule(body: unknown): FieldErrors {
  const value = field(body, 'time_zone');
  if (typeof value !== 'string' || value.length > 64 || isTimeZone(value)) return {};
  return { time_zone: ['The time zone must be a valid zone.'] };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * The logo decodes within 256 KB (the base64 the schema's maxLength allows can carry two bytes
 * more); whether it is base64 at all is the schema's `format: byte`, and its type the use case's to
 * read from the bytes.
 */
export function logoImageRule(body: unknown): FieldErrors {
  const value = field(body, 'image');
  if (typeof value !== 'string' || value.length > 349_528 || !BASE64.test(value)) return {};
  if (Buffer.byteLength(value, 'base64') > LOGO_MAX_BYTES) return { image: ['The image must not be greater than 256 kilobytes.'] };
  return {};
}

/** Stripe secrets of the wrong shape, reported with the body's other problems. */
export function acquirerSecretsRule(body: unknown): FieldErrors {
  const secretKey = field(body, 'stripe_secret_key');
  const webhookSecret = field(body, 'stripe_webhook_secret');
  return acquirerSecretErrors({
    stripeSecretKey: typeof secretKey === 'string' && secretKey.length <= 255 ? secretKey : undefined,
    stripeWebhookSecret: typeof webhookSecret === 'string' && webhookSecret.length <= 210 ? webhookSecret : undefined,
  });
}

/** The writable fields present in the body, copied by name. */
function changedFields(body: BusinessUpdate): ProfileChange {
  const change: ProfileChange = {};
  if (body.name !== undefined) change.name = body.name;
  if (body.display_name !== undefined) change.display_name = body.display_name;
  if (body.brand_color !== undefined) change.brand_color = body.brand_color;
  if (body.support_email !== undefined) change.support_email = body.support_email;
  if (body.support_phone !== undefined) change.support_phone = body.support_phone;
  if (body.website_url !== undefined) change.website_url = body.website_url;
  if (body.time_zone !== undefined) change.time_zone = body.time_zone;
  if (body.default_locale !== undefined) change.default_locale = body.default_locale;
  return change;
}

export const businessHandlers = {
  getBusiness: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok(present(await getBusinessProfile(ctx, business.id))));
    },
  },
  updateBusiness: {
    rules: [businessNameRule, brandColorRule, timeZoneRule],
    async handle({ body, business }, ctx, respond) {
      const result = await changeBusinessProfile(ctx, business.id, changedFields(body));
      if (result.outcome === 'invalid') return respond.with422({ message: 'The given data was invalid.', errors: result.errors });
      return respond.with200(ok(present(result.profile)));
    },
  },
  putBusinessLogo: {
    rules: [logoImageRule],
    async handle({ body, business }, ctx, respond) {
      const result = await setBusinessLogo(ctx, business.id, Buffer.from(body.image, 'base64'));
      if (result.outcome === 'invalid') return respond.with422({ message: 'The given data was invalid.', errors: result.errors });
      return respond.with200(ok(present(result.profile)));
    },
  },
  deleteBusinessLogo: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok(present(await removeBusinessLogo(ctx, business.id))));
    },
  },
  getAcquirer: {
    async handle({ business }, ctx, respond) {
      return respond.with200(ok(presentAcquirer(await getAcquirer(ctx, business.id))));
    },
  },
  setAcquirer: {
    rules: [acquirerSecretsRule],
    async handle({ body, business }, ctx, respond) {
      const result = await changeAcquirer(ctx, business.id, {
        acquirer: body.acquirer,
        stripeSecretKey: body.stripe_secret_key,
        stripeWebhookSecret: body.stripe_webhook_secret,
      });
      if (result.outcome === 'invalid') return respond.with422({ message: 'The given data was invalid.', errors: result.errors });
      return respond.with200(ok(presentAcquirer(result.acquirer)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
