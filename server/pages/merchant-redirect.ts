// Where the payer goes on to the merchant's redirect_url: the outcome's parameters and their
// `redirect_signature` (the business's key, server/usecases/merchant/redirect-signing.ts) set on the merchant's URL.
import type Koa from 'koa';
import { withQuery } from '../domain/urls.js';
import { signedRedirectParams } from '../usecases/merchant/redirect-signing.js';
import type { RedirectKind } from '../../shared/redirect-signature.js';
import type { PageDeps } from './deps.js';

/**
 * The merchant's URL with the redirect's parameters, signed. A key that cannot be read (SECRETS_KEY
 * changed) must not strand a payer who has paid: the redirect then goes unsigned, which the
 * merchant's check refuses as it would a forged one, and the error is logged for the operator.
 */
export async function merchantRedirectUrl(
  koa: Koa.Context,
  deps: PageDeps,
  businessId: number,
  redirectUrl: string,
  kind: RedirectKind,
  params: Record<string, string>,
): Promise<string> {
  try {
    return withQuery(redirectUrl, await signedRedirectParams(deps, businessId, kind, params));
  } catch (error) {
    (koa.state.log as { error(details: object, message: string): void } | undefined)?.error(
      { err: error, business_id: businessId },
      'the redirect to the merchant could not be signed; it goes unsigned',
    );
    return withQuery(redirectUrl, params);
  }
}
