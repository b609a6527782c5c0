import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, gzip, constants as zlib } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './app-error.js';
import { asPage, escapeHtml, PAGE_HEADERS } from './guides.js';

/**
 * The console (docs/console.md): the web application in console/, built by `npm install` into
 * console/dist and served here at /console/. Its hashed files under /console/assets/ are cached for
 * a year (a new build has new names); the page itself is revalidated every time, and every address
 * below /console/ that is not a file is the page (a reload of a deep link works: the application's
 * router reads the path). The console's folder sits three levels above this module both in
 * src/platform/http and dist/platform/http. Files are read once at start, and compressed when first
 * asked for (`encoded`).
 */
const CONSOLE_DIST = fileURLToPath(new URL('../../../console/dist/', import.meta.url));
export const CONSOLE_PATH = '/console/';
const ASSETS = 'assets/';

/**
 * Only the console's own files run and load: no inline script or style, nothing from elsewhere, no
 * framing. `connect-src 'self'`: it calls this server's API only.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const COMMON_HEADERS = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

interface ConsoleFile {
  type: string;
  etag: string;
  identity: Buffer;
  /** The build's compressed copies of the file (console/vite.config.ts), when it wrote them. */
  built?: Partial<Record<Encoding, Buffer>>;
  /** False for a page made per request: sent uncompressed whatever Accept-Encoding says. */
  compressed: boolean;
}

/** A strong ETag of the bytes: their SHA-256, shortened. */
const etagOf = (bytes: Buffer) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

type Encoding = 'br' | 'gzip';
/** The build's names of its compressed copies. */
const SUFFIXES: Record<Encoding, string> = { br: '.br', gzip: '.gz' };

/**
 * A file's compressed bytes: the build's copy, or else (the page, a build made without them) made
 * on first request, on libuv's threads so the server goes on answering, and kept for the process by
 * its ETag: every app of a process shares them (the tests build many), and a file no one asks for
 * costs nothing.
 */
const encodedByEtag = new Map<string, Promise<Buffer>>();

function encoded(file: ConsoleFile, encoding: Encoding): Promise<Buffer> {
  const built = file.built?.[encoding];
  if (built) return Promise.resolve(built);
  const key = `${encoding} ${file.etag}`;
  let found = encodedByEtag.get(key);
  if (!found) {
    const { identity } = file;
    found =
      encoding === 'br'
        ? brotli(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } })
        : gzipped(identity, { level: 9 });
    // A failure is not kept: the next request tries again.
    found.catch(() => encodedByEtag.delete(key));
    encodedByEtag.set(key, found);
  }
  return found;
}

/** Starts compressing `files` for the encodings browsers ask for, so their first requests find them made or under way. */
function compressAhead(files: Iterable<ConsoleFile>): void {
  for (const file of files) {
    encoded(file, 'br').catch(() => {});
    encoded(file, 'gzip').catch(() => {});
  }
}

function consoleFile(path: string): ConsoleFile {
  const file = fileOf(readFileSync(path), TYPES[extname(path)] ?? 'application/octet-stream');
  for (const encoding of ['br', 'gzip'] as const) {
    const copy = `${path}${SUFFIXES[encoding]}`;
    if (existsSync(copy)) file.built = { ...file.built, [encoding]: readFileSync(copy) };
  }
  return file;
}

function fileOf(identity: Buffer, type: string): ConsoleFile {
  return { type, etag: etagOf(identity), identity, compressed: true };
}

/** The built console: its page and its assets by name; undefined when console/dist holds no build. */
function readBuild(dist: string): { page: ConsoleFile; assets: Map<string, ConsoleFile> } | undefined {
  if (!existsSync(join(dist, 'index.html'))) return undefined;
  const assets = new Map<string, ConsoleFile>();
  const folder = join(dist, ASSETS);
  if (existsSync(folder)) {
    for (const entry of readdirSync(folder, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile() || /\.(br|gz)$/.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      assets.set(path.slice(folder.length).split('\\').join('/'), consoleFile(path));
    }
  }
  return { page: consoleFile(join(dist, 'index.html')), assets };
}

/** The encodings the client takes, best first: brotli, gzip, none (RFC 9110 §12.5.3; q=0 refuses one). */
function encodingFor(accept: string | undefined): Encoding | undefined {
  if (!accept) return undefined;
  const taken = new Map<string, number>();
  for (const part of accept.toLowerCase().split(',')) {
    const [name = '', ...parameters] = part.split(';').map((piece) => piece.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    taken.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const quality = (name: string) => taken.get(name) ?? taken.get('*') ?? 0;
  if (quality('br') > 0) return 'br';
  if (quality('gzip') > 0) return 'gzip';
  return undefined;
}

async function sendFile(request: FastifyRequest, reply: FastifyReply, file: ConsoleFile, cacheControl: string): Promise<FastifyReply> {
  reply
    .headers(COMMON_HEADERS)
    .header('Content-Type', file.type)
    .header('Cache-Control', cacheControl)
    .header('ETag', file.etag)
    .header('Vary', 'Accept-Encoding');
  if (request.headers['if-none-match'] === file.etag) return reply.status(304).send();
  const encoding = file.compressed ? encodingFor(request.headers['accept-encoding']) : undefined;
  if (encoding) reply.header('Content-Encoding', encoding);
  return reply.send(encoding ? await encoded(file, encoding) : file.identity);
}

export interface ConsoleOptions {
  /** The folder of the console's build; console/dist by default (tests give another). */
  dist?: string;
  /**
   * The tenant the request's Host names (`{tenant}.{base domain}`), if any: the page says it in
   * `<meta name="learnbase-tenant">`, and the application asks for none. The entry gives it
   * (tenancy's rule); without it, the page names no tenant.
   */
  tenantOf?: (request: FastifyRequest) => string | undefined;
  /**
   * The path of LEARNBASE_PUBLIC_URL (`/learning` for https://lrs.example.com/learning), where a
   * proxy that strips it serves this server: the page names its files below it. Empty: none.
   */
  publicPath?: string;
}

/**
 * The page naming its files below `publicPath`: the build names them `/console/assets/…`; the files
 * load each other relatively (console/vite.config.ts), and the application's router takes its base
 * from where its script was loaded.
 */
function underPublicPath(page: ConsoleFile, publicPath: string): ConsoleFile {
  if (publicPath === '') return page;
  return fileOf(Buffer.from(page.identity.toString('utf8').replaceAll(`"${CONSOLE_PATH}`, `"${publicPath}${CONSOLE_PATH}`)), page.type);
}

/** The page naming `tenant` (a tenant name: letters, digits, hyphens), revalidated by its own ETag. */
function pageFor(page: ConsoleFile, tenant: string): ConsoleFile {
  const meta = `<meta name="learnbase-tenant" content="${escapeHtml(tenant)}" />`;
  const identity = Buffer.from(page.identity.toString('utf8').replace(/<head>/i, (head) => `${head}\n    ${meta}`));
  // A page of half a kilobyte: sent as it is, not compressed for each tenant.
  return { type: page.type, etag: etagOf(identity), identity, compressed: false };
}

/**
 * `GET /console/…`: the console's page and files (no interface section; public: the application
 * signs in through the API). `/console` without its slash is sent to `/console/`.
 */
export function registerConsole(app: FastifyInstance, { dist = CONSOLE_DIST, tenantOf, publicPath = '' }: ConsoleOptions = {}): void {
  const build = readBuild(dist);
  const page = build && underPublicPath(build.page, publicPath);
  const hidden = { config: { public: true }, schema: { hide: true } };

  app.get('/console', hidden, async (request, reply) => {
    const query = request.url.indexOf('?');
    // Relative: `/console` → `/console/`, and `/learning/console` → `/learning/console/` behind a
    // proxy that strips a public path.
    return reply.redirect(`console/${query < 0 ? '' : request.url.slice(query)}`, 308);
  });

  const serve = async (request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
    if (!build || !page) {
      const body =
        '<h1>The console is not built</h1>\n<p>This server was started without the console’s build (console/dist). ' +
        '<code>npm install</code> builds it (or <code>npm run build</code> after a change).</p>';
      return reply
        .status(503)
        .headers(PAGE_HEADERS)
        .header('Cache-Control', 'no-store')
        .send(asPage('The console is not built · learnbase', body).html);
    }
    const path = request.params['*'] ?? '';
    if (path.startsWith(ASSETS)) {
      const file = build.assets.get(path.slice(ASSETS.length));
      if (!file) throw new AppError('console.not_found', 404, `The console has no file ${CONSOLE_PATH}${path}.`);
      return sendFile(request, reply, file, IMMUTABLE);
    }
    // Any other address is a page of the application: its router shows it, or says it has none. Its
    // script and styles are asked for next: any the build did not compress are started after it.
    const tenant = tenantOf?.(request);
    const sent = sendFile(request, reply, tenant === undefined ? page : pageFor(page, tenant), REVALIDATE);
    compressAhead(build.assets.values());
    return sent;
  };
  app.get(CONSOLE_PATH, hidden, serve);
  app.get(`${CONSOLE_PATH}*`, hidden, serve);
}
