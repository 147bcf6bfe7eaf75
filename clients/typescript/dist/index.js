/**
 * The Switchboard host API for TypeScript.
 *
 * The operations and types are generated from the API's OpenAPI document
 * (`./generated/`, re-exported here: `putUser`, `listServers`, `UserIn`, …);
 * this module adds what a generator does not: a set-up client (`connect`),
 * `paginate` over every list, retries of 429/503 honouring `Retry-After`,
 * typed errors with `code` and `field`, and `verifyDelivery`.
 */
import { createClient, createConfig } from './generated/client/index.js';
import { errorFrom } from './errors.js';
import { retryingFetch } from './retry.js';
export * from './generated/index.js';
export * from './errors.js';
export { paginate } from './paging.js';
export { retryAfterSeconds, retryingFetch } from './retry.js';
export { verifyDelivery, WebhookVerificationError } from './deliveries.js';
export const ACTOR_HEADER = 'Switchboard-Actor';
/**
 * A client for every generated call (`putUser({ client, path, body })`): it
 * sends the key and the actor, retries 429 and 503, and throws a
 * `SwitchboardError` for every answer of 400 or more.
 */
export function connect(options) {
    const client = createClient(createConfig({
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        auth: options.apiKey,
        headers: options.actor ? { [ACTOR_HEADER]: options.actor } : {},
        fetch: retryingFetch(options),
        throwOnError: true,
    }));
    client.interceptors.error.use((error, response) => (response ? errorFrom(error, response) : error));
    return client;
}
/** The same settings, its calls made for `actor` (`Switchboard-Actor`). */
export function actingFor(options, actor) {
    return connect({ ...options, actor });
}
