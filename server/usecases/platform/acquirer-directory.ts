// Which acquirer serves a business: the sandbox unless the business was switched to Stripe
// (`set-provider`, PUT /api/business/acquirer). Settings are read from the database on each use, so a switch made by the CLI
// in another process takes effect at once on every instance; Stripe clients are kept per account.
import { LRUCache } from 'lru-cache';
import type { CardFormAcquirer, HostedAcquirer, Acquirer } from '../../acquirers/acquirer.js';
import { StripeAcquirer, type StripeApiAddress } from '../../acquirers/stripe.js';
import { returnUrl } from '../../domain/payer-urls.js';
import type { MasterKey } from '../../secrets/master-key.js';
import { findAcquirerName, findAcquirerSettings, stripeAccountState, type StripeAccountState, type StripeSecrets } from '../../store/acquirer-settings.js';
import type { Executor } from '../../store/executor.js';

export interface Acquirers {
  /** The acquirer that takes the business's new payments and saves its payers' cards. */
  forBusiness(businessId: number): Promise<Acquirer>;
  /** The name of that acquirer (`sandbox`, `stripe`), without reaching it or opening its secrets. */
  nameForBusiness(businessId: number): Promise<string>;
  /** The acquirer named on a payment (`provider`): its refunds and notifications go back through it, whichever the business uses now. */
  named(businessId: number, name: string): Promise<Acquirer>;
  /**
   * How far the business is set up to take notifications from the acquirer `name` (`ready`: it has
   * an account there whose notifications it can verify). Asked of any business id anyone posts a
   * notification for, before its body is read: answered from a cache kept a few seconds, so a flood
   * of posts costs no database read each.
   */
  notificationAccount(businessId: number, name: string): Promise<NotificationAccount>;
  /**
   * Forgets what is remembered of the business's accounts, after its acquirer settings changed in
   * this process (other instances hear of it within NOTIFICATION_ACCOUNT_TTL_MS).
   */
  forget?(businessId: number): void;
}

/** `no_account`: the acquirer is not one that notifies, or the business has no key for it. */
export type NotificationAccount = 'no_business' | 'no_account' | 'no_webhook_secret' | 'ready';

/** A business whose acquirer cannot be reached with what is stored (no Stripe key, or one that does not open). */
export class AcquirerUnavailable extends Error {}

export interface AcquirerDirectoryOptions {
  /** The card-form acquirer (the sandbox, or a test's stand-in for it). */
  sandbox: CardFormAcquirer;
  /** Where Stripe's SDK sends requests: Stripe itself unless STRIPE_API_URL points at a stand-in. */
  stripeApi?: StripeApiAddress | undefined;
  /** The service's public address, for the return URL Stripe asks for when confirming charges. */
  publicUrl: string;
}

/** How long whether a business takes an acquirer's notifications is remembered: a new account is heard from after at most this (the acquirer retries). */
export const NOTIFICATION_ACCOUNT_TTL_MS = 10_000;

export class AcquirerDirectory implements Acquirers {
  private readonly stripeClients = new LRUCache<string, StripeAcquirer>({ max: 1_000 });
  // Unknown ids are remembered too (a flood may name any), within a bound; concurrent asks share one read.
  private readonly stripeAccounts = new LRUCache<number, StripeAccountState>({
    max: 10_000,
    ttl: NOTIFICATION_ACCOUNT_TTL_MS,
    fetchMethod: (businessId) => stripeAccountState(this.db, businessId),
  });

  constructor(
    private readonly db: Executor,
    private readonly secretsKey: MasterKey,
    private readonly options: AcquirerDirectoryOptions,
  ) {}

  async forBusiness(businessId: number): Promise<Acquirer> {
    const settings = await findAcquirerSettings(this.db, businessId, this.secretsKey);
    if (settings?.acquirer !== 'stripe') return this.options.sandbox;
    return this.stripe(businessId, settings.stripe);
  }

  async nameForBusiness(businessId: number): Promise<string> {
    return (await findAcquirerName(this.db, businessId)) ?? this.options.sandbox.name;
  }

  async named(businessId: number, name: string): Promise<Acquirer> {
    if (name !== 'stripe') return this.options.sandbox;
    const settings = await findAcquirerSettings(this.db, businessId, this.secretsKey);
    return this.stripe(businessId, settings?.stripe ?? null);
  }

  async notificationAccount(businessId: number, name: string): Promise<NotificationAccount> {
    const state = name === 'stripe' ? await this.stripeAccounts.fetch(businessId) : 'no_secret_key';
    return state === 'no_secret_key' || state === undefined ? 'no_account' : state;
  }

  forget(businessId: number): void {
    this.stripeAccounts.delete(businessId);
  }

  private stripe(businessId: number, secrets: StripeSecrets | null): HostedAcquirer {
    if (!secrets) throw new AcquirerUnavailable(`business ${businessId} uses Stripe but has no Stripe secret key (set-provider, STRIPE_SECRET_KEY)`);
    // One client per account and webhook secret: a rotated webhook secret makes a new one.
    const cacheKey = `${secrets.secretKey}\n${secrets.webhookSecret ?? ''}`;
    let client = this.stripeClients.get(cacheKey);
    if (!client) {
      client = new StripeAcquirer(secrets, { api: this.options.stripeApi, returnUrl: returnUrl(this.options.publicUrl) });
      this.stripeClients.set(cacheKey, client);
    }
    return client;
  }
}

/** One acquirer for every business: for tests that drive use cases with an acquirer of their own. */
export function singleAcquirer(acquirer: Acquirer): Acquirers {
  return {
    forBusiness: async () => acquirer,
    nameForBusiness: async () => acquirer.name,
    named: async () => acquirer,
    notificationAccount: async (_businessId, name) => (acquirer.checkout === 'hosted' && acquirer.name === name ? 'ready' : 'no_account'),
  };
}
