// Which due entries a worker takes when it has free delivery slots: round-robin across businesses
// (each business and channel is one queue), at most a set number in flight per queue, so one
// business whose receiver is slow or hanging cannot take every slot.
import type { ClaimableEntry } from '../store/outbox.js';

export const queueKey = (entry: Pick<ClaimableEntry, 'business_id' | 'channel'>) => `${entry.business_id}:${entry.channel}`;

export function parseQueueKey(key: string): Pick<ClaimableEntry, 'business_id' | 'channel'> {
  const [business, channel] = key.split(':');
  return { business_id: Number(business), channel: channel as ClaimableEntry['channel'] };
}

/**
 * From `candidates` (oldest first), the ids to claim: the oldest of each queue first, then the second
 * of each, and so on, at most `room(key)` from a queue and `limit` in all.
 */
export function pickFairly(candidates: ClaimableEntry[], limit: number, room: (key: string) => number): number[] {
  const queues = new Map<string, number[]>();
  for (const candidate of candidates) {
    const key = queueKey(candidate);
    const queue = queues.get(key) ?? [];
    if (!queues.has(key)) queues.set(key, queue);
    if (queue.length < room(key)) queue.push(candidate.id);
  }
  const picked: number[] = [];
  for (let round = 0; picked.length < limit; round += 1) {
    let any = false;
    for (const queue of queues.values()) {
      if (round >= queue.length) continue;
      any = true;
      picked.push(queue[round]!);
      if (picked.length === limit) break;
    }
    if (!any) break;
  }
  return picked;
}
