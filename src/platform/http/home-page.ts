import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { asPage, escapeHtml, GUIDES_PATH, PAGE_HEADERS } from './guides.js';

/** Where a newcomer goes from the server's address: absolute URLs on the address the request reached. */
export function frontDoorLinks(baseUrl: string) {
  return {
    console: `${baseUrl}/console/`,
    reference: `${baseUrl}/docs`,
    guides: `${baseUrl}${GUIDES_PATH}`,
    openapi: `${baseUrl}/openapi.json`,
    xapi: `${baseUrl}/xapi/`,
  };
}

/**
 * The server's front door, `GET /` (no interface section): a person opening the address in a
 * browser gets a page of links, an API client the same links as JSON. No tenant, no credential.
 */
export function registerHomePage(app: FastifyInstance): void {
  app.get('/', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    reply.header('Vary', 'Accept');
    if (wantsPage(request)) return reply.headers(PAGE_HEADERS).send(homePage(request.publicBaseUrl));
    return { name: 'learnbase', links: frontDoorLinks(request.publicBaseUrl) };
  });
}

/** The unknown route's answer to a browser: "Nothing here", and the way back (error-handler.ts). */
export function sendNotFoundPage(request: FastifyRequest, reply: FastifyReply, path: string): FastifyReply {
  const body = `<h1>Nothing here</h1>\n<p>This server has no page at <code>${escapeHtml(path)}</code>.</p>\n${linkList(request.publicBaseUrl)}`;
  return reply.status(404).headers(PAGE_HEADERS).header('Vary', 'Accept').send(asPage('Nothing here · learnbase', body).html);
}

/** A browser asking for a page: a GET or HEAD whose Accept ranks HTML above JSON. */
export function wantsPage(request: FastifyRequest): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && prefersHtml(request.headers.accept);
}

/**
 * Whether an Accept header ranks text/html above application/json. Each type takes the quality of
 * the most specific range that matches it (RFC 9110 §12.5.1); a tie goes to JSON. Browsers name
 * text/html and give any other type q=0.8; API clients send no Accept, the any-type range or
 * `application/json`.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [range = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const quality = q === undefined ? 1 : Number(q.slice(2));
    return { range, quality: Number.isFinite(quality) ? quality : 0 };
  });
  return qualityOf('text/html', ranges) > qualityOf('application/json', ranges);
}

function qualityOf(type: string, ranges: Array<{ range: string; quality: number }>): number {
  const [main] = type.split('/');
  for (const range of [type, `${main}/*`, '*/*']) {
    const matching = ranges.filter((item) => item.range === range);
    if (matching.length > 0) return Math.max(...matching.map((item) => item.quality));
  }
  return 0;
}

function homePage(baseUrl: string): string {
  const body = `<h1>learnbase: learning platform API and xAPI LRS</h1>\n${linkList(baseUrl)}`;
  return asPage('learnbase', body).html;
}

function linkList(baseUrl: string): string {
  const links = frontDoorLinks(baseUrl);
  const a = (href: string, text: string) => `<a href="${escapeHtml(href)}">${text}</a>`;
  return `<p>${a(links.console, '<strong>Open the console</strong>')}: sign in as an admin of your organisation to see and run its learning platform.</p>
<ul>
<li>${a(links.reference, 'The API reference')}: every endpoint, its parameters and its answers</li>
<li>${a(links.guides, 'The guides')}: tenants and keys, imports, actors, launching content, operations</li>
<li>${a(links.openapi, 'The OpenAPI description')}: to generate a client</li>
<li>${a(links.xapi, 'The xAPI endpoint')}, <code>${escapeHtml(links.xapi)}</code>: the address to give an xAPI client; it answers xAPI requests with credentials only (an API key, or an access token and the tenant)</li>
</ul>`;
}
