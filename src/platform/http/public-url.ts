import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The server's address as its clients know it, without a trailing slash: the operator's
     * LEARNBASE_PUBLIC_URL when set, else the scheme and host this request came in on. Statement
     * authorities, the OAuth metadata and the launch's xAPI endpoint are built on it.
     */
    publicBaseUrl: string;
  }
}

/**
 * Gives every request its `publicBaseUrl`. Without a configured URL, two host names of one server
 * (`lrs.example.com` and `acme.lrs.example.com`) give two addresses, so one API key would store
 * statements under two authorities; a configured URL makes them one.
 */
export function registerPublicUrl(app: FastifyInstance, publicUrl: string | undefined): void {
  app.decorateRequest('publicBaseUrl', {
    getter() {
      return publicUrl ?? `${this.protocol}://${this.host}`;
    },
  });
}

/** LEARNBASE_PUBLIC_URL as the config keeps it: an absolute http(s) URL without query, fragment or trailing slash; undefined when blank. */
export function normalisePublicUrl(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  if (!trimmed) return undefined;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return trimmed; // the config schema names it
  }
  if (url.search || url.hash || url.username || url.password) return trimmed;
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}
