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
  /** Every item, collected into an array (mind large stores: prefer `for await`). */
  all(): Promise<T[]>;
}

/** A PagedList over one fetchPage function. */
export function pagedList<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): PagedList<T> {
  return {
    page: (cursor) => fetchPage(cursor),
    async all() {
      const items: T[] = [];
      for await (const item of iteratePages(fetchPage)) items.push(item);
      return items;
    },
    [Symbol.asyncIterator]: () => iteratePages(fetchPage),
  };
}
