// A bucket of the collections report (GET /api/reports/collections) as it answers one, and payments
// planted as rows for a report to count.
import { randomBytes } from 'node:crypto';
import type { components, OpenPaymentLink } from '../../client/index.js';
import { newId } from '../../server/domain/ids.js';
import { localDay } from '../../server/domain/local-days.js';
import * as create from './factories.js';
import type { Tenant, TestService } from './service.js';

export type ReportBucket = components['schemas']['CollectionsBucket'];

/** Zeros but for what a test names, a day of the business's in Malaysian ringgit, not split by a group. */
export function bucket(date: string, figures: Partial<ReportBucket> = {}): ReportBucket {
  return {
    date,
    currency: 'MYR',
    group: null,
    payments_count: 0,
    paid_count: 0,
    failed_count: 0,
    paid_amount: 0,
    refunded_amount: 0,
    ...figures,
  };
}

export const PAID = 1;
export const PENDING = 2;
export const FAILED = 3;

export interface Planted {
  at: string;
  amount?: number;
  status_id?: number;
  method?: string;
  currency?: string;
  refunded?: number;
}

const links = new WeakMap<TestService, Map<number, OpenPaymentLink>>();

/** Payments as rows of the tenant's (the counters' triggers count them), each with the local day the store would give it in `zone`. */
export async function plant(t: TestService, tenant: Tenant, payments: Planted[], zone = 'Asia/Kuala_Lumpur'): Promise<void> {
  let ofService = links.get(t);
  if (!ofService) links.set(t, (ofService = new Map()));
  let link = ofService.get(tenant.business.id);
  if (!link) ofService.set(tenant.business.id, (link = await create.openLink(tenant)));
  const rows = payments.map((p) => {
    const amount = p.amount ?? 1000;
    const refunded = p.refunded ?? 0;
    return {
      _id: newId(),
      business_id: tenant.business.id,
      payment_link_id: null,
      open_payment_link_id: link._id,
      attempt_id: randomBytes(16).toString('hex'),
      amount,
      amount_refunded: refunded,
      refund_state: refunded === 0 ? 0 : refunded === amount ? 2 : 1,
      currency: p.currency ?? 'MYR',
      status_id: p.status_id ?? PAID,
      payer_name: 'Aisyah Rahman',
      payer_email: 'aisyah@example.com',
      method: p.method ?? 'card',
      provider: 'sandbox',
      created_at: p.at,
      updated_at: p.at,
      local_day: localDay(p.at, zone),
    };
  });
  await t.sql.batchInsert('payments', rows, 100);
}
