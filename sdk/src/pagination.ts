// Cursor paging as the spec defines it: repeat with the previous next_cursor while has_more is true.

/** One page of a list endpoint. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

/** Every item of every page, newest first, fetching the next page only when the previous one is used up. */
export async function* iteratePages<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T, void, undefined> {
  let cursor: string | undefined;
  for (;;) {
    const page = await fetchPage(cursor);
    yield* page.data;
    if (!page.has_more || page.next_cursor == null) return;
    cursor = page.next_cursor;
  }
}

/** An async iterable of the items of a list that also hands out the first page alone. */
export interface PagedList<T> extends AsyncIterable<T> {
  /** The first page (or the page at `cursor`), as the API answers it. */
  page(cursor?: string): Promise<Page<T>>;
  /**
   * The items collected into an array, at most `limit` of them (no further page is fetched once it is reached);
   * without a limit every item of every page (mind large stores: prefer `for await`, or give a limit).
   */
  all(options?: { limit?: number }): Promise<T[]>;
}

/** A PagedList over one fetchPage function. */
export function pagedList<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): PagedList<T> {
  return {
    page: (cursor) => fetchPage(cursor),
    async all(options = {}) {
      const limit = options.limit ?? Infinity;
      if (!(limit >= 0)) throw new RangeError('all({limit}): limit must be a number of items, 0 or more');
      const items: T[] = [];
      if (limit === 0) return items;
      for await (const item of iteratePages(fetchPage)) if (items.push(item) >= limit) break;
      return items;
    },
    [Symbol.asyncIterator]: () => iteratePages(fetchPage),
  };
}
