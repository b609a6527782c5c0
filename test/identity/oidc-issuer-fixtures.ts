import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT, UnsecuredJWT } from 'jose';

/**
 * A hand-made OpenID provider on loopback whose ID tokens the test signs as it likes: discovery, a
 * key set (one RS256 key), an authorization endpoint that signs in `login` at once (a code back to
 * the redirect URI with the state), and a token endpoint that checks the code, the client's secret
 * and the PKCE verifier as a provider does, then answers an ID token signed by its own key, by a key
 * outside its key set (naming its key's `kid`), by nobody (`alg: none`), or with the client secret
 * (HS256). Its discovery lists `RS256`, `HS256` and `none`, as a provider offering them would: the
 * algorithm a token names is not what makes it trusted.
 */
export type IdTokenSigning = 'provider' | 'another key' | 'none' | 'client secret';

export interface OidcIssuerFixture {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** How the next ID tokens are signed (default `provider`). */
  signing: IdTokenSigning;
  /** The claims of the person the authorization endpoint signs in (`sub` included). */
  person: Record<string, unknown>;
  /** How many times the key set was read. */
  jwksReads(): number;
  close(): Promise<void>;
}

const KID = 'provider-key-1';
const base64url = (bytes: Buffer) => bytes.toString('base64url');

export async function startOidcIssuer(redirectUris: string[], person: Record<string, unknown>): Promise<OidcIssuerFixture> {
  const own = await generateKeyPair('RS256');
  const another = await generateKeyPair('RS256');
  const publicJwk: JWK = { ...(await exportJWK(own.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'learnbase';
  const clientSecret = 'a-client-secret-long-enough-for-hs256-and-more';
  const codes = new Map<string, { nonce: string; challenge: string; redirectUri: string; claims: Record<string, unknown> }>();
  let reads = 0;

  const fixture: OidcIssuerFixture = {
    issuer,
    clientId,
    clientSecret,
    signing: 'provider',
    person,
    jwksReads: () => reads,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const idToken = async (claims: Record<string, unknown>): Promise<string> => {
    const now = Math.floor(Date.now() / 1000);
    const payload = { ...claims, iss: issuer, aud: clientId, iat: now, exp: now + 300 };
    switch (fixture.signing) {
      case 'provider':
        return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: KID }).sign(own.privateKey);
      case 'another key':
        return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: KID }).sign(another.privateKey);
      case 'none':
        return new UnsecuredJWT(payload).encode();
      case 'client secret':
        return new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(clientSecret));
    }
  };

  const json = (reply: ServerResponse, status: number, body: unknown) =>
    reply.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

  server.on('request', (request, reply) => {
    const url = new URL(request.url ?? '/', issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      json(reply, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256', 'HS256', 'none'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
        code_challenge_methods_supported: ['S256'],
      });
    } else if (url.pathname === '/jwks') {
      reads++;
      json(reply, 200, { keys: [publicJwk] });
    } else if (url.pathname === '/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      if (url.searchParams.get('client_id') !== clientId || !redirectUris.includes(redirectUri)) {
        json(reply, 400, { error: 'invalid_request' });
        return;
      }
      const code = base64url(randomBytes(24));
      codes.set(code, {
        nonce: url.searchParams.get('nonce') ?? '',
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirectUri,
        claims: { ...fixture.person },
      });
      const back = new URL(redirectUri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      reply.writeHead(302, { location: back.href }).end();
    } else if (url.pathname === '/token' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      request.on('end', async () => {
        const form = new URLSearchParams(body);
        const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        const [id, secret] = basic
          ? Buffer.from(basic, 'base64').toString('utf8').split(':').map(decodeURIComponent)
          : [form.get('client_id'), form.get('client_secret')];
        if (id !== clientId || secret !== clientSecret) return json(reply, 401, { error: 'invalid_client' });
        const issued = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (
          form.get('grant_type') !== 'authorization_code' ||
          !issued ||
          issued.redirectUri !== form.get('redirect_uri') ||
          base64url(createHash('sha256').update(verifier).digest()) !== issued.challenge
        ) {
          return json(reply, 400, { error: 'invalid_grant' });
        }
        json(reply, 200, {
          access_token: base64url(randomBytes(24)),
          token_type: 'Bearer',
          expires_in: 300,
          id_token: await idToken({ ...issued.claims, nonce: issued.nonce }),
        });
      });
    } else {
      reply.writeHead(404).end();
    }
  });
  return fixture;
}
