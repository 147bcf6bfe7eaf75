"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __exportStar = (this && this.__exportStar) || function(m, exports) {
    for (var p in m) if (p !== "default" && !Object.prototype.hasOwnProperty.call(exports, p)) __createBinding(exports, m, p);
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.ACTOR_HEADER = exports.WebhookVerificationError = exports.verifyDelivery = exports.retryingFetch = exports.retryAfterSeconds = exports.paginate = void 0;
exports.connect = connect;
exports.actingFor = actingFor;
/**
 * The Switchboard host API for TypeScript.
 *
 * The operations and types are generated from the API's OpenAPI document
 * (`./generated/`, re-exported here: `putUser`, `listServers`, `UserIn`, …);
 * this module adds what a generator does not: a set-up client (`connect`),
 * `paginate` over every list, retries of 429/503 honouring `Retry-After`,
 * typed errors with `code` and `field`, and `verifyDelivery`.
 */
const index_js_1 = require("./generated/client/index.js");
const errors_js_1 = require("./errors.js");
const retry_js_1 = require("./retry.js");
__exportStar(require("./generated/index.js"), exports);
__exportStar(require("./errors.js"), exports);
var paging_js_1 = require("./paging.js");
Object.defineProperty(exports, "paginate", { enumerable: true, get: function () { return paging_js_1.paginate; } });
var retry_js_2 = require("./retry.js");
Object.defineProperty(exports, "retryAfterSeconds", { enumerable: true, get: function () { return retry_js_2.retryAfterSeconds; } });
Object.defineProperty(exports, "retryingFetch", { enumerable: true, get: function () { return retry_js_2.retryingFetch; } });
var deliveries_js_1 = require("./deliveries.js");
Object.defineProperty(exports, "verifyDelivery", { enumerable: true, get: function () { return deliveries_js_1.verifyDelivery; } });
Object.defineProperty(exports, "WebhookVerificationError", { enumerable: true, get: function () { return deliveries_js_1.WebhookVerificationError; } });
exports.ACTOR_HEADER = 'Switchboard-Actor';
/**
 * A client for every generated call (`putUser({ client, path, body })`): it
 * sends the key and the actor, retries 429 and 503, and throws a
 * `SwitchboardError` for every answer of 400 or more.
 */
function connect(options) {
    const client = (0, index_js_1.createClient)((0, index_js_1.createConfig)({
        baseUrl: options.baseUrl.replace(/\/+$/, ''),
        auth: options.apiKey,
        headers: options.actor ? { [exports.ACTOR_HEADER]: options.actor } : {},
        fetch: (0, retry_js_1.retryingFetch)(options),
        throwOnError: true,
    }));
    client.interceptors.error.use((error, response) => (response ? (0, errors_js_1.errorFrom)(error, response) : error));
    return client;
}
/** The same settings, its calls made for `actor` (`Switchboard-Actor`). */
function actingFor(options, actor) {
    return connect({ ...options, actor });
}
