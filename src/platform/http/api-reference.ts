import { readFileSync } from 'node:fs';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import { GUIDES_PATH } from './guides.js';

/**
 * The API reference at /docs (@fastify/swagger-ui) dressed as the product: its name and version
 * in the page's title and the document's `info`, its own mark instead of the plugin's Fastify
 * logo and Swagger's favicon, and a link back to the guides. Everything is served by this server
 * (the mark is inlined by the plugin as a data: URL); nothing comes from a CDN.
 */

/** package.json sits three levels above this module, both in src/platform/http and dist/platform/http. */
const PACKAGE = new URL('../../../package.json', import.meta.url);

/** The product's name and its version, package.json's (`0.1.0`). */
export const PRODUCT = (() => {
  const { version } = JSON.parse(readFileSync(PACKAGE, 'utf8')) as { version: string };
  return { name: 'learnbase', version };
})();

/** The product's sign, an L on a square: the page's icon, and the start of its mark. */
const SIGN = `<rect x="2" y="6" width="28" height="28" rx="6" fill="#3b82f6"/>
<path d="M10 13v14h12" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/>`;
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 4 32 32">\n${SIGN}\n</svg>\n`;
/** The product's mark: the sign and its name, white on the reference's dark top bar (40 px high there). */
const MARK = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40" viewBox="0 0 200 40">
${SIGN}
<text x="40" y="28" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="22" font-weight="600" fill="#fff">${PRODUCT.name}</text>
</svg>
`;

/** What the reference's page says under its title (Markdown): what the product is, and where the guides are. */
export const REFERENCE_DESCRIPTION =
  'Multi-tenant learning platform API and xAPI Learning Record Store. Name the tenant with the ' +
  '`X-SVC-Tenant` header or the `{tenant}.{base-domain}` sub-domain.\n\n' +
  `The guides walk through it step by step, each example building on the ones before: [${GUIDES_PATH}](${GUIDES_PATH}).`;

/** @fastify/swagger-ui's options for the reference at /docs. */
export const apiReferenceOptions: FastifySwaggerUiOptions = {
  routePrefix: '/docs',
  uiConfig: { docExpansion: 'list' },
  theme: {
    title: `${PRODUCT.name} ${PRODUCT.version}: API reference`,
    favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: ICON }],
  },
  logo: { type: 'image/svg+xml', content: MARK, href: GUIDES_PATH },
};
