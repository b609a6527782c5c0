/**
 * The console's one way to the server: the public API (and the console's sign-in routes), with the
 * session cookie the browser holds (docs/console.md, "Signing in"). A write carries the session's
 * CSRF token; an answer that is not 2xx becomes an `ApiError` carrying the API's own `code` and
 * `message`, which the pages say in words beside what caused them.
 */

/** The server's root: two folders above this script (`…/console/assets/x.js`), below any public path. */
export const SERVER_ROOT = new URL(/* @vite-ignore */ '../../', import.meta.url);
/** The console's own root (`…/console/`). */
export const CONSOLE_ROOT = new URL(/* @vite-ignore */ '../', import.meta.url);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

let csrfToken: string | undefined;

/** The session's CSRF token, once the session is read (session.tsx). */
export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Told when the API says the session ended, so the shell can offer to sign in again. */
const signedOutListeners = new Set<() => void>();
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function apiUrl(path: string, query?: Query): URL {
  const url = new URL(path.replace(/^\//, ''), SERVER_ROOT);
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  return url;
}

interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** A raw body (a file being imported) with its type. */
  raw?: { body: BodyInit; type: string };
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** One API request; answers the parsed JSON (undefined for 204). */
export async function api<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const response = await send(method, path, options, 'application/json');
  if (response.status === 204) return undefined as T;
  const type = response.headers.get('content-type') ?? '';
  return (type.includes('json') ? await response.json() : await response.text()) as T;
}

/** One API request answered as it came (a CSV download, a `Link` header to read). */
export async function send(method: string, path: string, options: RequestOptions, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept, ...options.headers };
  let body: BodyInit | undefined;
  if (options.raw) {
    headers['content-type'] = options.raw.type;
    body = options.raw.body;
  } else if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  if (method !== 'GET' && method !== 'HEAD' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.query), { method, headers, body, credentials: 'same-origin', signal: options.signal });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'network', 'The server could not be reached: check the connection and try again.');
  }
  if (response.ok) return response;
  const problem = await problemOf(response);
  if (response.status === 401) for (const listener of signedOutListeners) listener();
  throw problem;
}

/** The API's error shape (`{code, message, details}`), or words for an answer without one. */
async function problemOf(response: Response): Promise<ApiError> {
  try {
    const body = (await response.json()) as { code?: string; message?: string; details?: Record<string, unknown> };
    if (typeof body.message === 'string') return new ApiError(response.status, body.code ?? 'error', body.message, body.details);
  } catch {
    // Not JSON: said below.
  }
  return new ApiError(
    response.status,
    'error',
    `The server answered ${response.status} ${response.statusText || ''}without saying why.`.replace('  ', ' '),
  );
}

/** The message to show for anything a request threw. */
export const messageOf = (error: unknown): string =>
  error instanceof ApiError ? error.message : error instanceof Error ? error.message : String(error);

/**
 * Sends a file as a request's body with its upload progress (fetch reports none): 0 to 1 as the
 * bytes leave, then the answer parsed as `api` parses it.
 */
export function upload<T>(
  method: string,
  path: string,
  file: Blob,
  type: string,
  options: { query?: Query; onProgress?: (share: number) => void } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open(method, apiUrl(path, options.query));
    request.setRequestHeader('content-type', type);
    request.setRequestHeader('accept', 'application/json');
    if (csrfToken) request.setRequestHeader('x-csrf-token', csrfToken);
    request.upload.onprogress = (event) => event.lengthComputable && options.onProgress?.(event.loaded / event.total);
    request.onerror = () => reject(new ApiError(0, 'network', 'The server could not be reached: check the connection and try again.'));
    request.onload = () => {
      let body: Record<string, unknown> | undefined;
      try {
        body = request.responseText ? (JSON.parse(request.responseText) as Record<string, unknown>) : undefined;
      } catch {
        body = undefined;
      }
      if (request.status >= 200 && request.status < 300) return resolve(body as T);
      if (request.status === 401) for (const listener of signedOutListeners) listener();
      const message = typeof body?.message === 'string' ? body.message : `The server answered ${request.status} without saying why.`;
      reject(
        new ApiError(
          request.status,
          typeof body?.code === 'string' ? body.code : 'error',
          message,
          body?.details as Record<string, unknown>,
        ),
      );
    };
    request.send(file);
  });
}

/** One page of a paged list of the API (docs/actors.md, "Listing actors"). */
export interface ListPage<T> {
  items: T[];
  /** How many match in all (`X-Total-Count`), when the API said. */
  total?: number;
  /** Whether more follow this page (`Link: <…>; rel="next"`). */
  hasNext: boolean;
}

/**
 * GET of a paged list, read with its headers. Only the presence of the next link is used: the
 * pages keep their own `skip` in the console's address, and the link's absolute address names the
 * server's public one, which need not be the origin the console was opened on.
 */
export async function getPage<T>(path: string, options: RequestOptions = {}): Promise<ListPage<T>> {
  const response = await send('GET', path, options, 'application/json');
  const items = (await response.json()) as T[];
  const total = Number.parseInt(response.headers.get('x-total-count') ?? '', 10);
  return { items, total: Number.isFinite(total) ? total : undefined, hasNext: hasNextLink(response.headers.get('link')) };
}

/** Whether a `Link` header (RFC 8288, possibly several links) holds one whose `rel` includes `next`. */
export function hasNextLink(header: string | null): boolean {
  if (!header) return false;
  for (const [, params] of header.matchAll(/<[^>]*>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /(?:^|;)\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params ?? '');
    const values = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (values.includes('next')) return true;
  }
  return false;
}
