// The TypeScript client against a live console (node --test). Started by
// tests/clients/test_typescript_client.py, which installs the package with
// `npm install ./clients/typescript` into a fresh folder, registers the
// reference MCP server and has the user allow it (SWB_SERVER), then runs this
// file there with SWB_URL and SWB_KEY.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';

import { Webhook } from 'standardwebhooks';

import {
  connect,
  createRequest,
  createSubscription,
  getRequest,
  getUser,
  Invalid,
  BadRequest,
  lifecycle,
  listAudit,
  listDeliveries,
  listGrants,
  listServers,
  listSubscriptions,
  listTasks,
  NotFound,
  paginate,
  postMessage,
  putEndpoint,
  putUser,
  RateLimited,
  SwitchboardError,
  testEndpoint,
  verifyDelivery,
  WebhookVerificationError,
} from '@switchboard/client';

const { SWB_URL, SWB_KEY, SWB_SERVER } = process.env;
const ACTOR = 'dana@example.com via Support Console';

function listen(handler) {
  return new Promise((resolve) => {
    const server = createServer(handler);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

const urlOf = (server) => `http://127.0.0.1:${server.address().port}`;

async function readBody(request) {
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function until(predicate, what, timeoutMs = 60000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('a user, made for a person, and typed errors', async () => {
  const client = connect({ baseUrl: SWB_URL, apiKey: SWB_KEY, actor: ACTOR });
  const { data: user } = await putUser({ client, path: { external_id: 'gina' }, body: { display_name: 'Gina' } });
  assert.equal(user.external_id, 'gina');
  assert.equal((await getUser({ client, path: { external_id: 'gina' } })).data.id, user.id);
  const entries = [];
  for await (const entry of paginate(listAudit, { client, query: { user: 'gina', limit: 200 } })) entries.push(entry);
  assert.deepEqual(
    entries.filter((e) => e.kind === 'user.created').map((e) => e.actor.on_behalf_of),
    [ACTOR],
  );

  await assert.rejects(getUser({ client, path: { external_id: 'nobody-here' } }), (error) => {
    assert.ok(error instanceof NotFound && error instanceof SwitchboardError);
    assert.equal(error.status, 404);
    assert.equal(error.code, 'user_not_found');
    return true;
  });
  await assert.rejects(
    putUser({ client, path: { external_id: 'gina' }, body: { display_name: 'x'.repeat(201) } }),
    (error) => error instanceof Invalid && error.code === 'invalid' && error.field === 'display_name',
  );
  await assert.rejects(
    listServers({ client, query: { cursor: 'not-a-cursor' } }),
    (error) => error instanceof BadRequest && error.code === 'invalid_cursor',
  );
});

test('a consent request, a message with context, a lifecycle event, a subscription', async () => {
  const client = connect({ baseUrl: SWB_URL, apiKey: SWB_KEY });
  const { data: created } = await createRequest({
    client,
    body: { user: 'alice', server: SWB_SERVER, scopes: ['hooks'] },
  });
  assert.match(created.id, /^req_/);
  assert.ok(created.consent_url.startsWith(SWB_URL));
  assert.equal((await getRequest({ client, path: { request_id: created.id } })).data.status, 'pending');

  const { data: answer } = await postMessage({
    client,
    path: { conversation_id: 'thread-ts' },
    body: { user: 'alice', message_id: 'm-ts-1', content: 'What about the database?' },
  });
  assert.equal(answer.items.length, 1);
  assert.equal(answer.items[0].server, SWB_SERVER);
  assert.ok(answer.items[0].context.startsWith('[refserver] Context for message'), answer.items[0].context);

  const { data: event } = await lifecycle({
    client,
    path: { session_id: 'session-ts' },
    body: { user: 'alice', event: 'session_start' },
  });
  assert.ok(event.event_id);

  const { data: subscription } = await createSubscription({
    client,
    body: { user: 'alice', server: SWB_SERVER, event: 'build.finished', arguments: { repo: 'acme/app' }, ttl_ms: 60000 },
  });
  assert.match(subscription.id, /^sub_/);
  assert.equal(subscription.event, 'build.finished');
});

test('every list, paged one item at a time to its end, is the whole list', async () => {
  const client = connect({ baseUrl: SWB_URL, apiKey: SWB_KEY });
  const lists = {
    servers: [listServers, {}],
    grants: [listGrants, { path: { external_id: 'alice' } }],
    subscriptions: [listSubscriptions, { query: { user: 'alice' } }],
    tasks: [listTasks, {}],
    deliveries: [listDeliveries, {}],
  };
  for (const [name, [operation, options]] of Object.entries(lists)) {
    const { data: whole } = await operation({ client, ...options, query: { ...options.query, limit: 200 } });
    assert.equal(whole.next_cursor, null, name);
    let pages = 0;
    const counted = (o) => {
      pages += 1;
      return operation(o);
    };
    const paged = [];
    for await (const item of paginate(counted, { client, ...options, query: { ...options.query, limit: 1 } })) {
      paged.push(item.id);
    }
    const wholeIds = whole.items.map((item) => item.id);
    if (name === 'deliveries') {
      // The worker may still add host deliveries (newest first) while we page:
      // what was there is paged in order, once; nothing twice.
      const known = new Set(wholeIds);
      assert.deepEqual(paged.filter((id) => known.has(id)), wholeIds, name);
      assert.equal(new Set(paged).size, paged.length, name);
    } else {
      assert.deepEqual(paged, wholeIds, name);
    }
    assert.ok(pages >= whole.items.length, `${name}: ${pages} pages`);
  }
  const { data: grants } = await listGrants({ client, path: { external_id: 'alice' } });
  assert.ok(grants.items.length >= 2);
  // The ledger grows while the worker writes; what was there stays in the paged list.
  const before = (await listAudit({ client, query: { limit: 200 } })).data.items.map((e) => e.id);
  const audit = [];
  for await (const entry of paginate(listAudit, { client, query: { limit: 7 } })) audit.push(entry.id);
  assert.equal(new Set(audit).size, audit.length);
  for (const id of before) assert.ok(audit.includes(id), id);
});

test('429 and 503 are retried after what Retry-After asks', async () => {
  // A rate limit and an outage outside our code: scripted answers, then the console.
  const script = [[429, '1'], [503, '0']];
  const hits = [];
  const injector = await listen(async (request, response) => {
    const body = await readBody(request);
    const fault = script.shift();
    if (fault) {
      hits.push([Date.now(), fault[0]]);
      const code = fault[0] === 429 ? 'rate_limited' : 'unavailable';
      response.writeHead(fault[0], { 'Retry-After': fault[1], 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ error: { code, message: 'injected' } }));
      return;
    }
    const headers = { ...request.headers };
    delete headers.host;
    delete headers['content-length'];
    delete headers.connection;
    const answer = await fetch(SWB_URL + request.url, {
      method: request.method,
      headers,
      body: body.length ? body : undefined,
    });
    hits.push([Date.now(), answer.status]);
    const text = Buffer.from(await answer.arrayBuffer());
    response.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(text);
  });
  try {
    const client = connect({ baseUrl: urlOf(injector), apiKey: SWB_KEY });
    const { data: user } = await putUser({ client, path: { external_id: 'hana' }, body: { display_name: 'Hana' } });
    assert.equal(user.display_name, 'Hana');
    assert.deepEqual(hits.map(([, status]) => status), [429, 503, 201]);
    assert.ok(hits[1][0] - hits[0][0] >= 950, `waited ${hits[1][0] - hits[0][0]} ms`);

    script.push([429, '2'], [429, '2']);
    const once = connect({ baseUrl: urlOf(injector), apiKey: SWB_KEY, retries: 1 });
    await assert.rejects(
      getUser({ client: once, path: { external_id: 'hana' } }),
      (error) => error instanceof RateLimited && error.code === 'rate_limited' && error.retryAfter === 2,
    );
  } finally {
    injector.close();
  }
});

test('a delivery verified, a forged one refused, the previous secret honoured', async () => {
  const client = connect({ baseUrl: SWB_URL, apiKey: SWB_KEY });
  const received = [];
  const endpoint = await listen(async (request, response) => {
    received.push({ headers: request.headers, body: await readBody(request) });
    response.writeHead(204);
    response.end();
  });
  try {
    const url = `${urlOf(endpoint)}/switchboard/webhooks`;
    const first = (await putEndpoint({ client, body: { url } })).data.secret;
    const rotated = (await putEndpoint({ client, body: { url } })).data.secret;
    await testEndpoint({ client });
    const ping = await until(
      () => received.find((d) => JSON.parse(d.body.toString()).type === 'ping'),
      'the test ping',
    );
    assert.equal(verifyDelivery(ping.headers, ping.body, rotated).type, 'ping');
    assert.equal(verifyDelivery(ping.headers, ping.body, [rotated, first]).type, 'ping');
    assert.equal(verifyDelivery(new Headers(ping.headers), ping.body.toString(), rotated, first).type, 'ping');
    // Signed with both during the grace: the previous secret alone verifies it too.
    assert.equal(verifyDelivery(ping.headers, ping.body, first).type, 'ping');

    // Signed with the previous secret alone (as before the rotation reached it).
    const body = '{"type":"ping","timestamp":"2026-11-24T15:07:01.123Z","data":{}}';
    const now = new Date();
    const oldOnly = {
      'webhook-id': 'msg_previous',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(first).sign('msg_previous', now, body),
    };
    assert.throws(() => verifyDelivery(oldOnly, body, rotated), WebhookVerificationError);
    assert.deepEqual(verifyDelivery(oldOnly, body, rotated, first), JSON.parse(body));

    const forged = Buffer.from(ping.body.toString().replace('"ping"', '"consent.updated"'));
    assert.throws(() => verifyDelivery(ping.headers, forged, rotated, first), WebhookVerificationError);
    const stranger = 'whsec_' + Buffer.from('not the secret of this endpoint!').toString('base64');
    assert.throws(() => verifyDelivery(ping.headers, ping.body, stranger), WebhookVerificationError);
    const unsigned = { ...ping.headers };
    delete unsigned['webhook-signature'];
    assert.throws(() => verifyDelivery(unsigned, ping.body, rotated), WebhookVerificationError);
  } finally {
    endpoint.close();
  }
});
