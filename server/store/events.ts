// The business's webhook events, as the outbox keeps them until retention prunes them. One event
// sent to several endpoints is one outbox entry per endpoint, all with the event's id: an event is
// read as the group of its entries (delivered when every one is, given up when any one is), and
// each entry is that endpoint's delivery with its attempts. An event no endpoint wanted when it
// happened is kept all the same, as one entry owed to nobody (`recordEventWithoutDeliveries`), so the
// business's event log and a payment's history hold every event from the first, endpoint or not.
import type { Knex } from 'knex';
import type { DateRange } from '../domain/time.js';
import type { Executor } from './executor.js';
import { cappedCount, listedThrough } from './pagination.js';
import type { Page, PageRequest } from '../domain/paging.js';
import { nowIso, toIsoMicros } from './timestamps.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

/** webhook_events.outcome (`migrations/0028_webhook_events.ts`): delivered everywhere, or a delivery failed and has not succeeded since. */
const OUTCOME_DELIVERED = 1;
const OUTCOME_FAILING = 2;

export interface EventRecord {
  id: string;
  type: string;
  trigger_at: string;
  data: Record<string, unknown>;
  /** pending (not yet delivered everywhere, maybe retrying) | delivered (everywhere) | dead (given up somewhere) */
  status: DeliveryStatus;
  /** Attempts, summed over the endpoints. */
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_error: string | null;
  created_at: string;
}

/** The event's delivery to one endpoint. */
export interface EndpointDelivery {
  /** null once the endpoint is deleted. */
  webhook_endpoint_id: string | null;
  url: string | null;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  last_error: string | null;
}

export interface DeliveryAttempt {
  webhook_endpoint_id: string | null;
  url: string | null;
  attempt: number;
  started_at: string;
  finished_at: string;
  outcome: 'delivered' | 'failed';
  http_status: number | null;
  error: string | null;
}

export interface EventFilters {
  type?: string;
  createdBetween?: DateRange;
  /** true: delivered everywhere; false: somewhere not delivered after at least one failed attempt, or given up. */
  deliverySuccess?: boolean;
}

interface EntryRow {
  id: number | string;
  event_id: string;
  topic: string;
  payload: string;
  status: DeliveryStatus;
  attempts: number | string;
  next_attempt_at: string;
  delivered_at: string | null;
  last_error: string | null;
  created_at: string;
  endpoint_public_id: string | null;
  endpoint_url: string | null;
}

/**
 * The entry that records an event no endpoint wanted: no endpoint, `delivered` (nothing is owed, so no
 * worker claims it and retention prunes it as it prunes a delivered event) and never attempted. A
 * delivery that arrived was attempted at least once, so the two are never confused.
 */
function isRecordOnly(row: { status: DeliveryStatus; attempts: number | string }): boolean {
  return row.status === 'delivered' && Number(row.attempts) === 0;
}

/** An entry of an event: owed to one endpoint (`pending`), or to none (`delivered`, the event's record alone). */
async function insertEventEntry(
  db: Executor,
  businessId: number,
  entry: { eventId: string; topic: string; payload: string; endpointId: number | null; status: DeliveryStatus },
): Promise<void> {
  const now = nowIso();
  await db.run(
    db.sql('outbox').insert({
      business_id: businessId,
      endpoint_id: entry.endpointId,
      channel: 'webhook',
      topic: entry.topic,
      payload: entry.payload,
      event_id: entry.eventId,
      status: entry.status,
      attempts: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now,
    }),
  );
}

/** Keeps an event in the log with nothing to deliver: no endpoint of the business wants it (yet). */
export async function recordEventWithoutDeliveries(db: Executor, businessId: number, event: { id: string; topic: string; payload: unknown }): Promise<void> {
  await insertEventEntry(db, businessId, {
    eventId: event.id,
    topic: event.topic,
    payload: JSON.stringify(event.payload),
    endpointId: null,
    status: 'delivered',
  });
}

function entries(db: Executor, businessId: number): Knex.QueryBuilder {
  return db.sql('outbox').where({ 'outbox.business_id': businessId, 'outbox.channel': 'webhook' }).whereNotNull('outbox.event_id');
}

/**
 * The entries of the given events, read through the index on their event ids: ordered by outbox id,
 * SQLite (without statistics) otherwise walked every entry of the business in that order.
 */
function entriesOfEvents(db: Executor, businessId: number): Knex.QueryBuilder {
  return listedThrough(db, 'outbox', 'outbox_event_index')
    .where({ 'outbox.business_id': businessId, 'outbox.channel': 'webhook' })
    .whereNotNull('outbox.event_id');
}

/** The entries of `eventIds`, oldest first, each with its endpoint's public id and URL (null once deleted). */
async function entriesOf(db: Executor, businessId: number, eventIds: string[]): Promise<EntryRow[]> {
  return db.all<EntryRow>(
    entriesOfEvents(db, businessId)
      .whereIn('outbox.event_id', eventIds)
      .leftJoin('webhook_endpoints as e', 'e.id', 'outbox.endpoint_id')
      .select(
        ['id', 'event_id', 'topic', 'payload', 'status', 'attempts', 'next_attempt_at', 'delivered_at', 'last_error', 'created_at'].map((c) => `outbox.${c}`),
      )
      .select('e._id as endpoint_public_id', 'e.url as endpoint_url')
      .orderBy('outbox.id'),
  );
}

function toDelivery(row: EntryRow): EndpointDelivery {
  return {
    webhook_endpoint_id: row.endpoint_public_id,
    url: row.endpoint_url,
    status: row.status,
    attempts: Number(row.attempts),
    next_attempt_at: row.status === 'pending' ? toIsoMicros(row.next_attempt_at) : null,
    delivered_at: row.delivered_at ? toIsoMicros(row.delivered_at) : null,
    last_error: row.last_error,
  };
}

/** One event from its entries (at least one). */
function toEvent(rows: EntryRow[]): EventRecord {
  const first = rows[0]!;
  const { body } = JSON.parse(first.payload) as { body: { trigger_at: string; data: Record<string, unknown> } };
  // An event owed to no endpoint has no delivery, and stands as delivered: nothing is outstanding.
  const deliveries = rows.filter((row) => !isRecordOnly(row)).map(toDelivery);
  const status: DeliveryStatus = deliveries.some((d) => d.status === 'dead')
    ? 'dead'
    : deliveries.every((d) => d.status === 'delivered')
      ? 'delivered'
      : 'pending';
  const latest = (values: (string | null)[]) =>
    values
      .filter((v): v is string => v !== null)
      .sort()
      .at(-1) ?? null;
  const earliest = (values: (string | null)[]) => values.filter((v): v is string => v !== null).sort()[0] ?? null;
  return {
    id: first.event_id,
    type: first.topic,
    trigger_at: body.trigger_at,
    data: body.data,
    status,
    attempts: deliveries.reduce((sum, d) => sum + d.attempts, 0),
    next_attempt_at: earliest(deliveries.map((d) => d.next_attempt_at)),
    delivered_at: status === 'delivered' ? latest(deliveries.map((d) => d.delivered_at)) : null,
    last_error: deliveries.filter((d) => d.status !== 'delivered' && d.last_error).at(-1)?.last_error ?? null,
    created_at: toIsoMicros(first.created_at),
  };
}

/**
 * A page of the business's events, read from one row per event (`migrations/0028_webhook_events.ts`) through an index
 * that holds the filters and then the order; the total is kept by a trigger (unfiltered) or counted up to COUNT_CAP.
 */
export async function listEvents(db: Executor, businessId: number, filters: EventFilters, page: PageRequest): Promise<Page<EventRecord>> {
  const by = [filters.deliverySuccess !== undefined && 'outcome', filters.type !== undefined && 'topic'].filter(Boolean).join('_');
  const query = listedThrough(db, 'webhook_events', by ? `webhook_events_${by}_page_index` : 'webhook_events_page_index').where({ business_id: businessId });
  if (filters.deliverySuccess !== undefined) query.where('outcome', filters.deliverySuccess ? OUTCOME_DELIVERED : OUTCOME_FAILING);
  if (filters.type !== undefined) query.where('topic', filters.type);
  if (filters.createdBetween) query.where('created_at', '>=', filters.createdBetween.start).andWhere('created_at', '<=', filters.createdBetween.end);
  const unfiltered = filters.deliverySuccess === undefined && filters.type === undefined && filters.createdBetween === undefined;
  const { total, totalAtLeast } = unfiltered ? { total: await eventCount(db, businessId), totalAtLeast: false } : await cappedCount(db, query);
  const offset = (page.page - 1) * page.perPage;
  if (offset >= total) return { rows: [], total, totalAtLeast };
  const ids = await db.all<{ event_id: string }>(
    query
      .clone()
      .select('event_id')
      .orderBy([
        { column: 'created_at', order: page.direction },
        { column: 'first_id', order: page.direction },
      ])
      .limit(page.perPage, { skipBinding: true })
      .offset(offset),
  );
  const rows = await entriesOf(
    db,
    businessId,
    ids.map((row) => row.event_id),
  );
  return { rows: ids.map(({ event_id }) => toEvent(rows.filter((row) => row.event_id === event_id))), total, totalAtLeast };
}

export type EventDetail = EventRecord & { endpoints: EndpointDelivery[]; deliveries: DeliveryAttempt[] };

/** The event, its delivery to each endpoint, and every attempt, read in one statement so all come from the same moment. */
export async function findEvent(db: Executor, businessId: number, eventId: string): Promise<EventDetail | undefined> {
  type Joined = EntryRow & {
    a_attempt: number | string | null;
    a_started_at: string | null;
    a_finished_at: string | null;
    a_outcome: DeliveryAttempt['outcome'] | null;
    a_http_status: number | string | null;
    a_error: string | null;
  };
  const rows = await db.all<Joined>(
    entriesOfEvents(db, businessId)
      .where('outbox.event_id', eventId)
      .leftJoin('webhook_endpoints as e', 'e.id', 'outbox.endpoint_id')
      .leftJoin('outbox_attempts as a', 'a.outbox_id', 'outbox.id')
      .select(
        ['id', 'event_id', 'topic', 'payload', 'status', 'attempts', 'next_attempt_at', 'delivered_at', 'last_error', 'created_at'].map((c) => `outbox.${c}`),
      )
      .select(
        'e._id as endpoint_public_id',
        'e.url as endpoint_url',
        'a.attempt as a_attempt',
        'a.started_at as a_started_at',
        'a.finished_at as a_finished_at',
        'a.outcome as a_outcome',
        'a.http_status as a_http_status',
        'a.error as a_error',
      )
      .orderBy([{ column: 'outbox.id' }, { column: 'a.id' }]),
  );
  if (rows.length === 0) return undefined;
  const byEntry = [...new Map(rows.map((row) => [Number(row.id), row])).values()];
  const deliveries = rows
    .filter((row) => row.a_attempt !== null)
    .map((row) => ({
      webhook_endpoint_id: row.endpoint_public_id,
      url: row.endpoint_url,
      attempt: Number(row.a_attempt),
      started_at: toIsoMicros(row.a_started_at!),
      finished_at: toIsoMicros(row.a_finished_at!),
      outcome: row.a_outcome!,
      http_status: row.a_http_status === null ? null : Number(row.a_http_status),
      error: row.a_error,
    }))
    .sort((a, b) => a.started_at.localeCompare(b.started_at));
  return { ...toEvent(byEntry), endpoints: byEntry.filter((row) => !isRecordOnly(row)).map(toDelivery), deliveries };
}

/**
 * Sends an event again, due now, whatever its state (delivered, given up, or waiting for a retry):
 * to every endpoint it went to, or to the one endpoint (row key) given, which gets its own entry if
 * the event never went there. A delivery under way at this moment is left to itself. Answers how
 * many entries are due now: 0 when every one of them is in flight.
 */
export async function resendEvent(db: Executor, businessId: number, eventId: string, endpointRowId?: number): Promise<number> {
  return db.transaction(async (tx) => {
    const now = nowIso();
    const scope = entries(tx, businessId).where('outbox.event_id', eventId);
    if (endpointRowId !== undefined) {
      scope.where('outbox.endpoint_id', endpointRowId);
      const existing = await tx.first<{ id: number }>(scope.clone().select('outbox.id'));
      if (!existing) {
        const source = await tx.first<{ topic: string; payload: string }>(
          entries(tx, businessId).where('outbox.event_id', eventId).select('outbox.topic', 'outbox.payload').orderBy('outbox.id'),
        );
        if (!source) return 0;
        await insertEventEntry(tx, businessId, { eventId, topic: source.topic, payload: source.payload, endpointId: endpointRowId, status: 'pending' });
        return 1;
      }
    }
    return tx.run(
      scope
        .andWhere((q) => q.whereNull('outbox.lease_owner').orWhere('outbox.lease_expires_at', '<', now))
        // The record of an event no endpoint wanted is not a delivery to send again.
        .andWhere((q) => q.whereNot('outbox.status', 'delivered').orWhere('outbox.attempts', '>', 0))
        .update({ status: 'pending', next_attempt_at: now, lease_owner: null, lease_expires_at: null, updated_at: now }),
    );
  });
}

/** The business's events, kept by triggers (`migrations/0028_webhook_events.ts`): no count over its rows. */
async function eventCount(db: Executor, businessId: number): Promise<number> {
  const row = await db.first<{ live: number | string }>(db.sql('webhook_event_counts').select('live').where({ business_id: businessId }));
  return Number(row?.live ?? 0);
}

/** An attempt to deliver an event to one endpoint, with the event it carried. */
export type EndpointDeliveryAttempt = DeliveryAttempt & { event_id: string; event_type: string };

export interface EndpointDeliveryFilters {
  outcome?: DeliveryAttempt['outcome'];
  /** On the attempt's start. */
  createdBetween?: DateRange;
}

/**
 * A page of one endpoint's attempts, newest or oldest first by their start, read through the index
 * of `migrations/0038_endpoint_deliveries.ts` that holds the business, the endpoint, the outcome filter and then the order;
 * the total is counted up to COUNT_CAP. The events they carried are then read by their entries' ids.
 */
export async function listEndpointDeliveries(
  db: Executor,
  businessId: number,
  endpoint: { id: number; _id: string; url: string },
  filters: EndpointDeliveryFilters,
  page: PageRequest,
): Promise<Page<EndpointDeliveryAttempt>> {
  const index = filters.outcome === undefined ? 'outbox_attempts_endpoint_page_index' : 'outbox_attempts_endpoint_outcome_page_index';
  const query = listedThrough(db, 'outbox_attempts', index).where({ business_id: businessId, endpoint_id: endpoint.id });
  if (filters.outcome !== undefined) query.where('outcome', filters.outcome);
  if (filters.createdBetween) query.where('started_at', '>=', filters.createdBetween.start).andWhere('started_at', '<=', filters.createdBetween.end);
  const { total, totalAtLeast } = await cappedCount(db, query);
  const offset = (page.page - 1) * page.perPage;
  if (offset >= total) return { rows: [], total, totalAtLeast };
  type AttemptRow = {
    outbox_id: number | string;
    attempt: number | string;
    started_at: string;
    finished_at: string;
    outcome: DeliveryAttempt['outcome'];
    http_status: number | string | null;
    error: string | null;
  };
  const attempts = await db.all<AttemptRow>(
    query
      .clone()
      .select('outbox_id', 'attempt', 'started_at', 'finished_at', 'outcome', 'http_status', 'error')
      .orderBy([
        { column: 'started_at', order: page.direction },
        { column: 'id', order: page.direction },
      ])
      .limit(page.perPage, { skipBinding: true })
      .offset(offset),
  );
  const entryIds = [...new Set(attempts.map((row) => Number(row.outbox_id)))];
  const events =
    entryIds.length === 0
      ? []
      : await db.all<{ id: number | string; event_id: string | null; topic: string }>(
          db.sql('outbox').select('id', 'event_id', 'topic').where({ business_id: businessId }).whereIn('id', entryIds),
        );
  const eventOf = new Map(events.map((row) => [Number(row.id), row]));
  const rows = attempts.flatMap((row): EndpointDeliveryAttempt[] => {
    const event = eventOf.get(Number(row.outbox_id));
    // Retention deletes an entry with its attempts in one transaction: an attempt read just before
    // it committed finds its entry gone, and is left out as it would be a moment later.
    if (!event?.event_id) return [];
    return [
      {
        event_id: event.event_id,
        event_type: event.topic,
        webhook_endpoint_id: endpoint._id,
        url: endpoint.url,
        attempt: Number(row.attempt),
        started_at: toIsoMicros(row.started_at),
        finished_at: toIsoMicros(row.finished_at),
        outcome: row.outcome,
        http_status: row.http_status === null ? null : Number(row.http_status),
        error: row.error,
      },
    ];
  });
  return { rows, total, totalAtLeast };
}
