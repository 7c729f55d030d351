// How deep a list can be paged: the first record of a page must be among the first 10000
// (openapi.yaml, Page). Past that, a 422 that says how far the list reaches and how to narrow it;
// the cost of a page request stays bounded however large the list.
import { describe, expect, it } from 'vitest';
import { raw, useService } from '../support/service.js';

const t = useService();

describe.each(['/payment-links', '/open-payment-links'])('GET %s', (path) => {
  const list = (query: string) => raw(`${t.apiUrl}${path}?${query}`, { key: t.a.key });

  it.each([
    [15, 667],
    [100, 100],
    [1, 10_000],
    [7, 1429],
  ])('at %i per page, page %i is the last it reaches; the next is a 422 naming page', async (perPage, last) => {
    const reached = await list(`per_page=${perPage}&page=${last}`);
    expect(reached.status).toBe(200);
    expect((reached.body as { data: { data: unknown[]; current_page: number } }).data).toMatchObject({ data: [], current_page: last });
    const past = await list(`per_page=${perPage}&page=${last + 1}`);
    expect(past.status).toBe(422);
    // At one record per page the window is the schema's own maximum, with Laravel's plain text.
    const message =
      perPage === 1
        ? 'The page must not be greater than 10000.'
        : `The page must not be greater than ${last} at ${perPage} per page: a list reaches its first 10000 records. Narrow it with filter[created_at_between], or sort=created_at to start from the oldest.`;
    expect(past.body).toEqual({ message: 'The given data was invalid.', errors: { page: [message] } });
  });

  it('the default per_page is 15: page 668 alone is refused', async () => {
    expect((await list('page=668')).status).toBe(422);
    expect((await list('page=667')).status).toBe(200);
  });
});
