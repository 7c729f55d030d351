// What a list request asks for and the page it gets: the same shape from the store, through the use
// cases, to the handlers that render it.
export interface PageRequest {
  page: number;
  perPage: number;
  /** Newest first unless the caller asked for `sort=created_at`. */
  direction: 'asc' | 'desc';
}

export interface Page<T> {
  rows: T[];
  total: number;
  /** `total` is a lower bound: counting stopped at the store's cap. */
  totalAtLeast?: boolean;
}
