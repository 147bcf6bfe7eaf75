// A real OpenID Provider for the SSO tests: panva's oidc-provider (OpenID
// Certified), on loopback. Usage: node server.mjs <port>
//
// The tests drive it only through what an operator or a person at the IdP
// would do, plus two test controls:
//   PUT /__test/accounts/<sub>  {email, email_verified, groups, name}: who exists
//   PUT /__test/misbehave       {aud?, nonce?, drop_nonce?, exp_offset?, iss?, foreign_key?}:
//        the next ID tokens the token endpoint issues are re-signed with these
//        changes (a misbehaving or compromised IdP; foreign_key signs with a
//        key not in the JWKS). {} behaves again.
// Clients register through OpenID Connect Dynamic Client Registration (/reg).
// People sign in on /interaction/<uid> with a form whose `login` field names
// the account (no password: the IdP's own authentication is not under test).
import http from 'node:http';
import * as jose from 'jose';
import Provider from 'oidc-provider';

const port = Number(process.argv[2] || 0);
const issuer = `http://127.0.0.1:${port}`;
const accounts = new Map();
let misbehave = {};

const { privateKey } = await jose.generateKeyPair('RS256', { extractable: true });
const signingJwk = { ...(await jose.exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
const foreign = await jose.generateKeyPair('RS256', { extractable: true });

const provider = new Provider(issuer, {
  jwks: { keys: [signingJwk] },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
  },
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
    groups: ['groups'],
  },
  // The claims of the granted scopes go into the ID token too (not only
  // userinfo), as most enterprise IdPs do for a group claim.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  cookies: { keys: ['switchboard-test-oidc'] },
  async findAccount(ctx, sub) {
    const account = accounts.get(sub);
    if (!account) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, ...account };
      },
    };
  },
  async loadExistingGrant(ctx) {
    // Staff apps are first-party: consent is implied, as at a company IdP.
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid email profile groups');
    await grant.save();
    return grant;
  },
});
provider.proxy = false;

const page = (uid, error = '') => `<!doctype html><html><head><title>Test IdP sign-in</title></head>
<body><h1>Test identity provider</h1>${error ? `<p role="alert">${error}</p>` : ''}
<form method="post" action="/interaction/${uid}/login">
<label>Account <input name="login" autofocus></label>
<button type="submit">Sign in at the IdP</button></form></body></html>`;

async function readForm(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}

async function readJson(req) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body ? JSON.parse(body) : {};
}

// Re-sign an issued ID token with the test's changes.
async function misbehaving(idToken) {
  const claims = jose.decodeJwt(idToken);
  if (misbehave.aud !== undefined) claims.aud = misbehave.aud;
  if (misbehave.iss !== undefined) claims.iss = misbehave.iss;
  if (misbehave.nonce !== undefined) claims.nonce = misbehave.nonce;
  if (misbehave.drop_nonce) delete claims.nonce;
  if (misbehave.exp_offset !== undefined) {
    const now = Math.floor(Date.now() / 1000);
    claims.iat = now + misbehave.exp_offset - 60;
    claims.exp = now + misbehave.exp_offset;
  }
  const key = misbehave.foreign_key ? foreign.privateKey : privateKey;
  return new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'test-key' }).sign(key);
}

provider.use(async (ctx, next) => {
  await next();
  if (ctx.path === '/token' && ctx.status === 200 && Object.keys(misbehave).length && ctx.body?.id_token) {
    ctx.body = { ...ctx.body, id_token: await misbehaving(ctx.body.id_token) };
  }
});

const oidc = provider.callback();
const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url, issuer);
    const send = (status, body, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(type === 'application/json' ? JSON.stringify(body) : body);
    };
    if (url.pathname.startsWith('/__test/accounts/') && req.method === 'PUT') {
      accounts.set(decodeURIComponent(url.pathname.slice('/__test/accounts/'.length)), await readJson(req));
      return send(200, { ok: true });
    }
    if (url.pathname === '/__test/misbehave' && req.method === 'PUT') {
      misbehave = await readJson(req);
      return send(200, { ok: true });
    }
    const match = url.pathname.match(/^\/interaction\/([^/]+)(\/login)?$/);
    if (match) {
      const details = await provider.interactionDetails(req, res);
      if (!match[2]) return send(200, page(details.uid), 'text/html; charset=utf-8');
      const login = (await readForm(req)).get('login') || '';
      if (!accounts.has(login)) return send(200, page(details.uid, 'No such account'), 'text/html; charset=utf-8');
      return provider.interactionFinished(req, res, { login: { accountId: login } }, { mergeWithLastSubmission: false });
    }
    return oidc(req, res);
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end(String(error?.stack || error));
  }
});

server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`oidc-provider listening on ${issuer}\n`);
});
