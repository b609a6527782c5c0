import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestAsyncHookHandler, RouteOptions } from 'fastify';
import { AppError } from './app-error.js';
import { ApiError } from './common-schemas.js';

/**
 * Admission of requests whose bodies are read into memory whole (bulk imports, statements with
 * attachment data): at most `perProcess` in flight in this process and `perTenant` of one tenant.
 * A request past either bound is refused before its body is read: 429 when its tenant has its
 * share in flight (the others still get in), else 503 (the process is full). Both carry
 * Retry-After. Refused, not queued: a queued request would still be sending its body, or hold
 * its connection, and a client retrying after Retry-After gets the same answer a queue would
 * give it later, without the server holding anything meanwhile.
 *
 * The counts are per process, like the memory they protect: N processes admit N times as many.
 */
export interface AdmissionLimits {
  perProcess: number;
  perTenant: number;
}

/** What the route's `config.admission` names: the budget its requests are counted against. */
export type AdmissionName = 'imports' | 'attachments';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Requests of this route are admitted under this budget (admission.ts). */
    admission?: AdmissionName;
  }
}

/** Bodies declared this small are admitted without being counted: they cost little, and small requests are the common case. */
export const UNCOUNTED_BODY_BYTES = 1024 * 1024;

export class Admission {
  private inFlight = 0;
  private readonly byTenant = new Map<string, number>();

  constructor(
    /** Names the budget in errors and metrics: `imports`, `attachments`. */
    readonly name: AdmissionName,
    readonly limits: AdmissionLimits,
    /** What Retry-After says, in seconds: about how long one admitted request takes. */
    readonly retryAfterSeconds: number,
  ) {}

  /**
   * Takes a place for one request of `tenantId`: the function that gives it back (call it once;
   * later calls do nothing), or why there is none.
   */
  enter(tenantId: string): (() => void) | 'tenant' | 'process' {
    const tenantCount = this.byTenant.get(tenantId) ?? 0;
    if (tenantCount >= this.limits.perTenant) return 'tenant';
    if (this.inFlight >= this.limits.perProcess) return 'process';
    this.inFlight += 1;
    this.byTenant.set(tenantId, tenantCount + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      const left = (this.byTenant.get(tenantId) ?? 1) - 1;
      if (left === 0) this.byTenant.delete(tenantId);
      else this.byTenant.set(tenantId, left);
    };
  }

  /** Requests admitted and not yet answered, in all and of one tenant. */
  inFlightCount(tenantId?: string): number {
    return tenantId === undefined ? this.inFlight : (this.byTenant.get(tenantId) ?? 0);
  }
}

export const AdmissionErrors = {
  tenantBusy: (admission: Admission) =>
    new AppError(
      'request.tenant_busy',
      429,
      `Your tenant already has ${admission.limits.perTenant} ${describe(admission.name)} in progress on this server; ` +
        `retry in ${admission.retryAfterSeconds} s.`,
      {
        details: { limit: admission.name, inFlight: admission.limits.perTenant, retryAfterSeconds: admission.retryAfterSeconds },
        headers: { 'Retry-After': String(admission.retryAfterSeconds) },
      },
    ),
  serverBusy: (admission: Admission) =>
    new AppError(
      'request.server_busy',
      503,
      `This server already has ${admission.limits.perProcess} ${describe(admission.name)} in progress; retry in ${admission.retryAfterSeconds} s.`,
      {
        details: { limit: admission.name, inFlight: admission.limits.perProcess, retryAfterSeconds: admission.retryAfterSeconds },
        headers: { 'Retry-After': String(admission.retryAfterSeconds) },
      },
    ),
};

const describe = (name: AdmissionName) => (name === 'imports' ? 'large imports' : 'large attachment uploads');

export interface AdmissionOptions {
  admissions: Record<AdmissionName, Admission>;
  /** The tenant a request is counted under; undefined: not counted (the route answers 401 or 404 itself). */
  tenantOf(request: FastifyRequest): string | undefined;
}

/**
 * Admits the requests of every route whose `config.admission` names a budget. Call before the
 * routes are added: each such route gets a route-level onRequest hook (which runs after the
 * app's own, so after authentication), and its schema the 429 and 503 answers.
 */
export function registerAdmission(app: FastifyInstance, options: AdmissionOptions): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const name = route.config?.admission;
    if (name === undefined) return;
    const admission = options.admissions[name];
    const hook = admit(admission, options);
    route.onRequest =
      route.onRequest === undefined ? [hook] : [...(Array.isArray(route.onRequest) ? route.onRequest : [route.onRequest]), hook];
    const responses = route.schema?.response as Record<number, unknown> | undefined;
    if (responses) {
      responses[429] ??= { ...ApiError, description: 'The tenant has its share of such requests in progress (Retry-After, in seconds).' };
      responses[503] ??= {
        ...ApiError,
        description: 'The server has all the such requests it takes in progress (Retry-After, in seconds).',
      };
    }
  });
}

function admit(admission: Admission, options: AdmissionOptions): onRequestAsyncHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (!counts(admission.name, request)) return;
    const tenantId = options.tenantOf(request);
    if (tenantId === undefined) return;
    const entered = admission.enter(tenantId);
    if (entered === 'tenant' || entered === 'process') {
      // The body is not read: once the answer is out Node reads and discards what the client still
      // sends (no memory), so the client, still sending, gets the answer rather than a reset.
      throw entered === 'tenant' ? AdmissionErrors.tenantBusy(admission) : AdmissionErrors.serverBusy(admission);
    }
    // 'close' follows the end of the response, or the connection's loss before it: either way the place is given back.
    reply.raw.once('close', entered);
  };
}

/**
 * Whether this request is counted: a body larger than UNCOUNTED_BODY_BYTES or of unknown length
 * (chunked); for attachments, only multipart/mixed (a JSON statement request carries no data).
 */
function counts(name: AdmissionName, request: FastifyRequest): boolean {
  if (
    name === 'attachments' &&
    !String(request.headers['content-type'] ?? '')
      .toLowerCase()
      .startsWith('multipart/')
  )
    return false;
  const declared = request.headers['content-length'];
  return declared === undefined || !(Number(declared) <= UNCOUNTED_BODY_BYTES);
}
