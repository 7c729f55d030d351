// Swipe writes payment_time as PHP's `d-m-Y h:i:s a`, e.g. `02-12-2021 12:08:50 pm`, in Malaysia time.
import { describe, expect, it } from 'vitest';
import { swipeTime } from '../../server/domain/time.js';

describe('swipeTime', () => {
  it.each([
    ['2021-12-02T04:08:50.000000Z', '02-12-2021 12:08:50 pm'],
    ['2021-12-01T16:00:00.000000Z', '02-12-2021 12:00:00 am'],
    ['2021-12-02T03:59:59.999999Z', '02-12-2021 11:59:59 am'],
    ['2021-12-02T05:00:00.000000Z', '02-12-2021 01:00:00 pm'],
    ['2021-12-31T16:30:00.000000Z', '01-01-2022 12:30:00 am'],
    ['2024-02-28T16:00:01.000000Z', '29-02-2024 12:00:01 am'],
  ])('%s is %s', (iso, expected) => {
    expect(swipeTime(iso)).toBe(expected);
  });
});
