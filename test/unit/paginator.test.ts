import { describe, expect, it } from 'vitest';
import { paginator, type PaginatorInput } from '../../server/handlers/paginator.js';

const PATH = 'http://localhost:3000/api/payment-links';

function page(input: Partial<PaginatorInput> & Pick<PaginatorInput, 'page' | 'total' | 'count'>) {
  const records = Array.from({ length: input.count }, (_, i) => ({ n: i }));
  return paginator({ path: PATH, rawQuery: '', perPage: 15, ...input }, records);
}

describe('paginator: Laravel LengthAwarePaginator fields', () => {
  it('first of three pages', () => {
    expect(page({ page: 1, total: 40, count: 15 })).toEqual({
      current_page: 1,
      data: expect.any(Array),
      first_page_url: `${PATH}?page=1`,
      from: 1,
      last_page: 3,
      last_page_url: `${PATH}?page=3`,
      next_page_url: `${PATH}?page=2`,
      path: PATH,
      per_page: 15,
      prev_page_url: null,
      to: 15,
      total: 40,
    });
  });

  it('middle page', () => {
    expect(page({ page: 2, total: 40, count: 15 })).toMatchObject({
      current_page: 2,
      from: 16,
      to: 30,
      last_page: 3,
      next_page_url: `${PATH}?page=3`,
      prev_page_url: `${PATH}?page=1`,
    });
  });

  it('last page, partly filled', () => {
    expect(page({ page: 3, total: 40, count: 10 })).toMatchObject({
      current_page: 3,
      from: 31,
      to: 40,
      last_page: 3,
      last_page_url: `${PATH}?page=3`,
      next_page_url: null,
      prev_page_url: `${PATH}?page=2`,
    });
  });

  it('last page exactly filled: total a multiple of per_page', () => {
    expect(page({ page: 2, total: 30, count: 15 })).toMatchObject({ from: 16, to: 30, last_page: 2, next_page_url: null });
  });

  it('the data of the page is passed through as given', () => {
    const data = [{ _id: 'a' }, { _id: 'b' }];
    expect(paginator({ path: PATH, rawQuery: '', page: 1, perPage: 15, total: 2, count: 2 }, data).data).toBe(data);
  });

  it('empty collection: one empty page, from and to null', () => {
    expect(page({ page: 1, total: 0, count: 0 })).toEqual({
      current_page: 1,
      data: [],
      first_page_url: `${PATH}?page=1`,
      from: null,
      last_page: 1,
      last_page_url: `${PATH}?page=1`,
      next_page_url: null,
      path: PATH,
      per_page: 15,
      prev_page_url: null,
      to: null,
      total: 0,
    });
  });

  it('a page past the last: empty, from and to null, previous page still linked, no next page', () => {
    expect(page({ page: 5, total: 20, count: 0 })).toEqual({
      current_page: 5,
      data: [],
      first_page_url: `${PATH}?page=1`,
      from: null,
      last_page: 2,
      last_page_url: `${PATH}?page=2`,
      next_page_url: null,
      path: PATH,
      per_page: 15,
      prev_page_url: `${PATH}?page=4`,
      to: null,
      total: 20,
    });
  });

  it('last_page is at least 1 and rounds up', () => {
    expect(page({ page: 1, total: 0, count: 0 }).last_page).toBe(1);
    expect(page({ page: 1, total: 1, count: 1 }).last_page).toBe(1);
    expect(page({ page: 1, total: 15, count: 15 }).last_page).toBe(1);
    expect(page({ page: 1, total: 16, count: 15 }).last_page).toBe(2);
    expect(page({ page: 1, total: 3, count: 1, perPage: 1 }).last_page).toBe(3);
  });

  it('reproduces the example of openapi.yaml (per_page=1, page 2 of 3)', () => {
    expect(page({ page: 2, total: 3, count: 1, perPage: 1, rawQuery: 'per_page=1&page=2' })).toEqual({
      current_page: 2,
      data: expect.any(Array),
      first_page_url: `${PATH}?per_page=1&page=1`,
      from: 2,
      last_page: 3,
      last_page_url: `${PATH}?per_page=1&page=3`,
      next_page_url: `${PATH}?per_page=1&page=3`,
      path: PATH,
      per_page: 1,
      prev_page_url: `${PATH}?per_page=1&page=1`,
      to: 2,
      total: 3,
    });
  });
});

describe('paginator: page URLs keep the other query parameters', () => {
  const rawQuery = 'page=2&per_page=5&sort=created_at&filter%5Bstatus%5D=Paid&filter%5Breference%5D=INV+1001%2B2';
  const result = page({ page: 2, total: 12, count: 5, perPage: 5, rawQuery });

  it.each([
    ['first_page_url', '1'],
    ['prev_page_url', '1'],
    ['next_page_url', '3'],
    ['last_page_url', '3'],
  ] as const)('%s carries page=%s exactly once, and every other parameter unchanged', (field, expectedPage) => {
    const url = new URL(result[field]!);
    expect(`${url.origin}${url.pathname}`).toBe(PATH);
    expect(url.searchParams.getAll('page')).toEqual([expectedPage]);
    expect(url.searchParams.get('per_page')).toBe('5');
    expect(url.searchParams.get('sort')).toBe('created_at');
    expect(url.searchParams.get('filter[status]')).toBe('Paid');
    expect(url.searchParams.get('filter[reference]')).toBe('INV 1001+2');
    expect([...url.searchParams.keys()]).toHaveLength(5);
  });

  it('puts page last, after the request parameters', () => {
    expect(result.next_page_url).toBe(`${PATH}?per_page=5&sort=created_at&filter%5Bstatus%5D=Paid&filter%5Breference%5D=INV+1001%2B2&page=3`);
  });

  it('replaces repeated page parameters with one', () => {
    const repeated = page({ page: 1, total: 30, count: 15, rawQuery: 'page=1&page=7' });
    expect(repeated.next_page_url).toBe(`${PATH}?page=2`);
  });
});
