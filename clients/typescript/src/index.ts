/**
 * The Switchboard host API for TypeScript.
 *
 * The operations and types are generated from the API's OpenAPI document
 * (`./generated/`, re-exported here: `putUser`, `listServers`, `UserIn`, …);
 * this module adds what a generator does not: a set-up client (`connect`),
 * `paginate` over every list, retries of 429/503 honouring `Retry-After`,
 * typed errors with `code` and `field`, and `verifyDelivery`.
 */
import { type Client, createClient, createConfig } from './generated/client/index.js';
import { errorFrom } from './errors.js';
import { type RetryOptions, retryingFetch } from './retry.js';

export * from './generated/index.js';
export type { Client } from './generated/client/index.js';
export * from './errors.js';
export { paginate } from './paging.js';
export { retryAfterSeconds, retryingFetch, type RetryOptions } from './retry.js';
export { verifyDelivery, WebhookVerificationError } from './deliveries.js';

export const ACTOR_HEADER = 'Switchboard-Actor';

export interface ConnectOptions extends RetryOptions {
  /** Where the console runs (`http://127.0.0.1:8000`, without `/api/v1`). */
  baseUrl: string;
  /** The host's API key (`swb_…`). */
  apiKey: string;
  /** Sent as `Switchboard-Actor` on every call: whom the host calls for. */
  actor?: string;
}

/**
 * A client for every generated call (`putUser({ client, path, body })`): it
 * sends the key and the actor, retries 429 and 503, and throws a
 * `SwitchboardError` for every answer of 400 or more.
 */
export function connect(options: ConnectOptions): Client {
  const client = createClient(
    createConfig({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      auth: options.apiKey,
      headers: options.actor ? { [ACTOR_HEADER]: options.actor } : {},
      fetch: retryingFetch(options) as typeof fetch,
      throwOnError: true,
    }),
  );
  client.interceptors.error.use((error, response) => (response ? errorFrom(error, response) : error));
  return client;
}

/** The same settings, its calls made for `actor` (`Switchboard-Actor`). */
export function actingFor(options: ConnectOptions, actor: string): Client {
  return connect({ ...options, actor });
}
