import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

/**
 * A real OpenID provider on loopback: oidc-provider (the certified implementation) with its
 * development sign-in pages (any login, any password), one confidential client, PKCE required, and
 * the people's claims in the ID token. `people` maps a login to its claims; change an entry to see
 * the next sign-in carry new claims.
 */
export interface OidcFixture {
  issuer: string;
  clientId: string;
  clientSecret: string;
  people: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startOidcProvider(redirectUris: string[], people: Map<string, Record<string, unknown>>): Promise<OidcFixture> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'learnbase';
  const clientSecret = 'a-client-secret-long-enough-for-hs256-and-more';
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'given_name', 'family_name', 'groups'] },
    // The claims the scopes ask for in the ID token itself, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    cookies: { keys: ['a-cookie-signing-key-for-the-tests'] },
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => ({ sub, ...(people.get(sub) ?? {}) }),
    }),
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId,
    clientSecret,
    people,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
