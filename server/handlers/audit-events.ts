// The audit log's one operation: a filtered page of the business's events.
import type { SomeHandlers } from '../http/operations.js';
import type { UseCaseContext } from '../usecases/platform/context.js';
import { listAuditEvents } from '../usecases/merchant/audit-log.js';
import { ok } from './envelope.js';
import { createdRange, pageOf, pageRequest, pageTooDeep } from './listing.js';

export const auditEventHandlers = {
  listAuditEvents: {
    async handle({ query, rawQuery, business }, ctx, respond) {
      const page = pageRequest(query);
      const deep = pageTooDeep(page);
      if (deep) return respond.with422(deep);
      const filters = {
        actorId: query['filter[actor_id]'],
        action: query['filter[action]'],
        targetId: query['filter[target_id]'],
        createdBetween: await createdRange(ctx, business.id, query),
      };
      const result = await listAuditEvents(ctx, business.id, filters, page);
      return respond.with200(ok(pageOf(`${ctx.publicUrl}/api/audit-events`, rawQuery, page, result, (record) => record)));
    },
  },
} satisfies SomeHandlers<UseCaseContext>;
