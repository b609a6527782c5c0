import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { type AddressAllowance, addressKind, isMetadataName, kindAllowed } from './outbound-address.js';

/**
 * The one client for every HTTP request the server makes to an address someone else chose (a SAML
 * provider's metadata URL, an OpenID provider's discovery, token endpoint and keys; webhooks and
 * statement forwarding next), with Node's own modules (docs/operations.md, "Requests the server
 * makes"). Every connection passes the guard: the host name is resolved here, each address it
 * resolves to is judged (outbound-address.ts) and only a judged address is connected to, through
 * the `lookup` hook of the request itself, so a DNS answer that changes between a check and the
 * connection cannot slip through; a literal IP address (which Node connects to without a lookup)
 * is judged before the request, and the peer of every socket once more when it connects. Loopback,
 * private, link-local, metadata and the other special addresses are refused by default; private
 * ones may be allowed on premises (LEARNBASE_OUTBOUND_ALLOW_PRIVATE), loopback only by the tests.
 *
 * Redirects are never followed (a 3xx is an error to the caller: a public address must not hand
 * the server on to an internal one), a connection and a whole answer have time limits, and no more
 * bytes are read than the caller allows. What the caller may tell whoever named the address is
 * `OutboundError.message`: a target refused, a connection refused, a timeout, a TLS or a DNS
 * failure are all "it could not be reached", so the answers cannot be used to map what listens
 * where; only a reachable, allowed target's status or size is said. The real reason is logged for
 * the operator.
 */

/** Which addresses this process may connect to besides public ones. */
export type OutboundPolicy = AddressAllowance;

export interface OutboundLog {
  warn(details: object, message: string): void;
}

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** The most bytes of the answer's body read; a larger answer is an error. */
  maxBytes: number;
  /** How long the whole request may take, connection to last byte, in ms. Default: DEFAULT_TIMEOUT_MS. */
  timeoutMs?: number;
  /** The caller's own end to the request (openid-client's timeout). */
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  statusText: string;
  /** The headers as received, names lower-cased, in order (a name may repeat: Set-Cookie). */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** A connection is up within this, or the target could not be reached. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** The whole request by default: a provider's metadata or discovery document comes in well under it. */
export const DEFAULT_TIMEOUT_MS = 10_000;
/** The most an answer through `fetch` may be: discovery documents, key sets and token answers are a few KB. */
export const FETCH_MAX_BYTES = 1024 * 1024;

/** What a refused, failed or unreadable request tells the caller (`message`), and the operator (`reason`). */
export class OutboundError extends Error {
  constructor(
    /** `unreachable`: refused by the guard or failed on the way, all told alike; `status`: a reachable target's answer; `too_large`. */
    readonly kind: 'unreachable' | 'status' | 'too_large',
    message: string,
    /** What really happened, for the log only. */
    readonly reason: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

const UNREACHABLE = 'it could not be reached';
const unreachable = (reason: string) => new OutboundError('unreachable', UNREACHABLE, reason);

/**
 * The message an outbound failure may show whoever named the address: `error`'s, or that of an
 * OutboundError among its causes (openid-client wraps what its fetch throws); undefined when the
 * failure was not the outbound client's.
 */
export function outboundProblem(error: unknown): string | undefined {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof OutboundError) return cause.message;
  }
  return undefined;
}

/**
 * The test-only loopback allowance of a process the tests spawn (a server, a command): honoured
 * only under NODE_ENV=test, so a deployment's configuration cannot switch it on by accident.
 */
export const TEST_LOOPBACK_ENV = 'LEARNBASE_TEST_OUTBOUND_LOOPBACK';
export const testLoopbackAllowance = (env: NodeJS.ProcessEnv = process.env): boolean =>
  env.NODE_ENV === 'test' && env[TEST_LOOPBACK_ENV] === 'allow';

export class OutboundHttp {
  constructor(
    readonly policy: OutboundPolicy,
    private readonly log?: OutboundLog,
  ) {}

  /**
   * `url` requested once through the guard; answers whatever status but a redirect, with the body
   * read whole (at most `maxBytes`). Rejects with an OutboundError, logged.
   */
  async request(url: string | URL, init: OutboundRequest): Promise<OutboundResponse> {
    let target: URL | undefined;
    try {
      target = new URL(url);
      return await this.send(target, init);
    } catch (error) {
      const failure = error instanceof OutboundError ? error : unreachable((error as Error).message);
      this.log?.warn(
        { url: target ? `${target.origin}${target.pathname}` : String(url).slice(0, 200), reason: failure.reason },
        `an outbound request failed: ${failure.message}`,
      );
      throw failure;
    }
  }

  /** A GET whose answer must be 2xx: its body. Another status is an OutboundError saying it (`it answered 404`). */
  async get(url: string, init: Omit<OutboundRequest, 'method' | 'body'>): Promise<Buffer> {
    const response = await this.request(url, { ...init, method: 'GET' });
    if (response.status < 200 || response.status > 299) {
      throw new OutboundError('status', `it answered ${response.status}`, `status ${response.status}`, response.status);
    }
    return response.body;
  }

  /**
   * A `fetch` for libraries that take one (openid-client's `customFetch`: discovery, the token
   * endpoint and the provider's keys all go through the guard). Answers a Response of Node's
   * globals; never follows a redirect; at most FETCH_MAX_BYTES of body.
   */
  readonly fetch = async (url: string | URL, init: OutboundFetchInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers ?? undefined);
    // The body is handed on as received: nothing may ask for it compressed.
    headers.delete('accept-encoding');
    if (init.body instanceof URLSearchParams && !headers.has('content-type')) {
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    }
    const response = await this.request(url, {
      method: init.method ?? 'GET',
      headers: Object.fromEntries(headers),
      ...(init.body === undefined || init.body === null ? {} : { body: await bodyBytes(init.body) }),
      maxBytes: FETCH_MAX_BYTES,
      ...(init.signal ? { signal: init.signal } : {}),
    });
    const answered = new Headers();
    for (const [name, value] of response.headers) answered.append(name, value);
    const empty = response.status === 204 || response.status === 205 || response.status === 304;
    return new Response(empty ? null : new Uint8Array(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: answered,
    });
  };

  private send(url: URL, init: OutboundRequest): Promise<OutboundResponse> {
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw unreachable(`the scheme ${url.protocol} is not http or https`);
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isMetadataName(host)) throw unreachable(`${host} is a cloud metadata service's name`);
    if (isIP(host)) this.judge(host);
    return new Promise<OutboundResponse>((resolve, reject) => {
      let settled = false;
      let request: ClientRequest | undefined;
      const timers: NodeJS.Timeout[] = [];
      const finish = (error: Error | undefined, response?: OutboundResponse) => {
        if (settled) return;
        settled = true;
        for (const timer of timers) clearTimeout(timer);
        init.signal?.removeEventListener('abort', onAbort);
        if (error) {
          request?.destroy();
          reject(
            error instanceof OutboundError ? error : unreachable(`${(error as NodeJS.ErrnoException).code ?? 'error'}: ${error.message}`),
          );
        } else resolve(response!);
      };
      const onAbort = () => finish(unreachable('the caller gave up (its own timeout)'));
      if (init.signal?.aborted) return onAbort();
      init.signal?.addEventListener('abort', onAbort, { once: true });
      const timeoutMs = init.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      timers.push(setTimeout(() => finish(unreachable(`no whole answer within ${timeoutMs} ms`)), timeoutMs));
      timers.push(setTimeout(() => finish(unreachable(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS));
      const options: RequestOptions = {
        method: init.method ?? 'GET',
        headers: {
          'user-agent': 'learnbase',
          ...init.headers,
          ...(init.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(init.body)) }),
          connection: 'close',
        },
        // A fresh connection per request, each resolved and judged here: none is kept, none shared.
        agent: false,
        lookup: this.guardedLookup,
      };
      request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (response) =>
        this.read(response, init.maxBytes, finish),
      );
      request.on('socket', (socket: Socket) => {
        socket.once('connect', () => {
          clearTimeout(timers[1]);
          // The peer as connected, once more: whatever path led to it, it must be an address the guard allows.
          try {
            if (socket.remoteAddress) this.judge(socket.remoteAddress);
          } catch (error) {
            finish(error as Error);
          }
        });
      });
      request.on('error', (error) => finish(error));
      request.end(init.body);
    });
  }

  private read(response: IncomingMessage, maxBytes: number, finish: (error: Error | undefined, response?: OutboundResponse) => void) {
    const status = response.statusCode ?? 0;
    if (status >= 300 && status < 400) {
      response.resume();
      return finish(
        new OutboundError(
          'status',
          `it answered ${status}, a redirect, which is not followed`,
          `redirect ${status} to ${response.headers.location ?? '(none)'}`,
          status,
        ),
      );
    }
    const tooLarge = () =>
      new OutboundError('too_large', `it is larger than ${maxBytes} bytes`, `an answer of more than ${maxBytes} bytes`, status);
    if (Number(response.headers['content-length'] ?? 0) > maxBytes) return finish(tooLarge());
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > maxBytes) finish(tooLarge());
      else chunks.push(chunk);
    });
    response.on('error', (error) => finish(error));
    response.on('end', () => {
      const headers: Array<[string, string]> = [];
      for (let i = 0; i + 1 < response.rawHeaders.length; i += 2)
        headers.push([response.rawHeaders[i]!.toLowerCase(), response.rawHeaders[i + 1]!]);
      finish(undefined, { status, statusText: response.statusMessage ?? '', headers, body: Buffer.concat(chunks) });
    });
  }

  /** Throws the refusal of an address this process may not connect to. */
  private judge(address: string): void {
    const kind = addressKind(address);
    if (kind === undefined || !kindAllowed(kind, this.policy)) throw unreachable(`${address} is ${kind ?? 'no IP address'}: refused`);
  }

  /**
   * The `lookup` of every connection: the name resolved here, every address judged, and only then
   * the addresses handed to the socket. A name with any address the guard refuses is refused whole
   * (a name resolving to a public and a loopback address is someone's trick).
   */
  private readonly guardedLookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0, ...(options.hints ? { hints: options.hints } : {}) }, (error, found) => {
      const addresses = found as unknown as LookupAddress[];
      if (error) return callback(error, '', 0);
      try {
        if (addresses.length === 0) throw unreachable(`${hostname} resolved to no address`);
        for (const { address } of addresses) this.judge(address);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** What `fetch` takes: the parts of RequestInit openid-client sends. */
export interface OutboundFetchInit {
  method?: string;
  headers?: HeadersInit | Record<string, string>;
  body?: string | URLSearchParams | Uint8Array | ArrayBuffer | ReadableStream | null;
  signal?: AbortSignal | null;
}

async function bodyBytes(body: NonNullable<OutboundFetchInit['body']>): Promise<Buffer> {
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  return Buffer.from(await new Response(body).arrayBuffer());
}
