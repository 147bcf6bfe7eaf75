/**
 * Every list of the API is paged the same way: `?cursor=` takes the
 * `next_cursor` of the page before, and `null` ends the list.
 */
/**
 * Each item of a list, page after page, to its end. `operation` is a generated
 * list call (`listServers`, `listGrants`, …); `options` are its own (`client`,
 * `path`, `query` filters and `limit`).
 */
export async function* paginate(operation, options) {
    let cursor = null;
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
