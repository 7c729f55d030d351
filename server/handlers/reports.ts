// The reports' operations: the collections chart's figures per day, week or month.
import type { components } from '../../generated/openapi.js';
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { collectionsReport, type CollectionsReport } from '../usecases/merchant/reports.js';
import { ok } from './envelope.js';
import { createdBetween } from './listing.js';

function present(report: CollectionsReport): components['schemas']['CollectionsReport'] {
  return {
    time_zone: report.timeZone,
    interval: report.interval,
    group_by: report.groupBy,
    from: report.from,
    to: report.to,
    buckets: report.buckets.map((bucket) => ({
      date: bucket.date,
      currency: bucket.currency,
      group: bucket.group,
      payments_count: bucket.paymentsCount,
      paid_count: bucket.paidCount,
      failed_count: bucket.failedCount,
      paid_amount: bucket.paidAmount,
      refunded_amount: bucket.refundedAmount,
    })),
  };
}

const REPORT_RUNNING = {
  message: 'A collections report of this business is already running; a business runs one at a time. Try again once it has finished.',
};

export const reportHandlers = {
  getCollectionsReport: {
    async handle({ query, business }, ctx, respond) {
      const range = createdBetween(query['filter[created_at_between]']);
      const outcome = await collectionsReport(ctx, business.id, {
        range: range && { from: range.from, to: range.to },
        interval: query.interval ?? 'day',
        groupBy: query.group_by,
        emptyBuckets: query.empty_buckets,
      });
      if (outcome.result === 'refused')
        return respond.with422({ message: 'The given data was invalid.', errors: { 'filter.created_at_between': [outcome.message] } });
      if (outcome.result === 'busy') return respond.with429(REPORT_RUNNING, { 'Retry-After': String(outcome.retryAfterSeconds) });
      return respond.with200(ok(present(outcome.report)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
