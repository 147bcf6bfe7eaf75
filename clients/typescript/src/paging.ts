/**
 * Every list of the API is paged the same way: `?cursor=` takes the
 * `next_cursor` of the page before, and `null` ends the list.
 */

interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

type ListOptions = { query?: object; [key: string]: unknown };

/**
 * Each item of a list, page after page, to its end. `operation` is a generated
 * list call (`listServers`, `listGrants`, …); `options` are its own (`client`,
 * `path`, `query` filters and `limit`).
 */
export async function* paginate<T, O extends ListOptions>(
  operation: (options: O) => Promise<{ data?: Page<T> } | { data: Page<T> }>,
  options: O,
): AsyncGenerator<T, void, undefined> {
  let cursor: string | null = null;
  do {
    const query = { ...(options.query ?? {}), ...(cursor ? { cursor } : {}) };
    const answer = await operation({ ...options, query, throwOnError: true });
    const page = answer.data;
    if (!page || !Array.isArray(page.items)) {
      throw new TypeError(`the list call did not answer a page: ${JSON.stringify(page)}`);
    }
    yield* page.items;
    cursor = page.next_cursor;
  } while (cursor);
}
