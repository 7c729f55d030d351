// Stripe's `expand[]`: ids in an answer replaced by the objects they name, along dotted paths of up
// to four levels, each step one of the fields Stripe's description marks expandable for that object.
import type Stripe from 'stripe';
import { invalidRequest } from './errors.js';
import type { StripeSpec } from './spec.js';
import type { Account, EventObject } from './state.js';

const MAX_DEPTH = 4;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A charge's refunds, which Stripe leaves out of the charge unless expanded (API versions since 2022-11-15). */
function refundList(account: Account, charge: Json): Stripe.ApiList<Stripe.Refund> {
  const data = account
    .all('refund')
    .filter((refund) => refund.charge === charge.id)
    .reverse()
    .map((refund) => structuredClone(refund));
  return { object: 'list', data, has_more: false, url: `/v1/charges/${charge.id as string}/refunds` };
}

function expandPath(account: Account, spec: StripeSpec, target: Json, segments: string[], path: string): void {
  const [field, ...rest] = segments;
  if (!field) return;
  if (!spec.expandableFields(String(target.object)).includes(field)) throw invalidRequest(`This property cannot be expanded (${path}).`, 'expand');
  let value = target[field];
  if (field === 'refunds' && target.object === 'charge') value = target.refunds = refundList(account, target);
  else if (typeof value === 'string') {
    const found = account.find(value);
    if (found) value = target[field] = structuredClone(found);
  }
  if (rest.length > 0 && isObject(value)) expandPath(account, spec, value, rest, path);
}

/** A copy of `object` with the given paths expanded; a path Stripe would refuse is a 400 as Stripe answers it. */
export function expand(account: Account, spec: StripeSpec, object: EventObject, paths: readonly string[]): EventObject {
  const copy = structuredClone(object) as unknown as Json;
  for (const path of paths) {
    const segments = path.split('.');
    if (segments.length > MAX_DEPTH) throw invalidRequest(`You cannot expand more than ${MAX_DEPTH} levels of a property. Property: ${path}`, 'expand');
    expandPath(account, spec, copy, segments, path);
  }
  return copy as unknown as EventObject;
}
