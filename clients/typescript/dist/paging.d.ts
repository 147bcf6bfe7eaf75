/**
 * Every list of the API is paged the same way: `?cursor=` takes the
 * `next_cursor` of the page before, and `null` ends the list.
 */
interface Page<T> {
    items: T[];
    next_cursor: string | null;
}
type ListOptions = {
    query?: object;
    [key: string]: unknown;
};
/**
 * Each item of a list, page after page, to its end. `operation` is a generated
 * list call (`listServers`, `listGrants`, …); `options` are its own (`client`,
 * `path`, `query` filters and `limit`).
 */
export declare function paginate<T, O extends ListOptions>(operation: (options: O) => Promise<{
    data?: Page<T>;
} | {
    data: Page<T>;
}>, options: O): AsyncGenerator<T, void, undefined>;
export {};
