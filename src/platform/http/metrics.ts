import cluster from 'node:cluster';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ConnectionUse, SqlClient } from '../database/sql-client.js';
import { PROCESS_COUNTERS } from '../process-metrics.js';
import { clusterMetricsText, shareWithPrimary } from '../cluster-metrics.js';
import { AppError } from './app-error.js';

export interface MetricsOptions {
  /**
   * LEARNBASE_METRICS_TOKEN: a request bearing it (`Authorization: Bearer …`) is served from any
   * address. Absent: loopback clients only.
   */
  token?: string;
}

/**
 * The process's label: the node:cluster worker id under `serve --workers N` (a replaced worker
 * gets a new one), `0` for a single process. Every series carries it, so the figures of two
 * workers are two series.
 */
export const workerLabel = (): string => String(cluster.worker?.id ?? 0);

/** The route of a request that matched none (404s): one series for all of them, whatever their URL. */
const UNMATCHED = 'unmatched';

let defaultMetrics: Registry | undefined;

/**
 * Node's own figures (CPU, memory, event-loop lag, GC, handles), once per process: they describe
 * the process, not one app, and their collectors (a GC observer, an event-loop monitor) are never
 * stopped, so a second app in the same process (the tests) must not start them again.
 */
function processRegistry(): Registry {
  if (!defaultMetrics) {
    defaultMetrics = new Registry();
    defaultMetrics.setDefaultLabels({ worker: workerLabel() });
    collectDefaultMetrics({ register: defaultMetrics });
  }
  return defaultMetrics;
}

/** The database's `connections()` when it has one (both adapters do; a bare transaction client does not). */
function connectionsOf(sql: SqlClient): (() => ConnectionUse) | undefined {
  const database = sql as SqlClient & { connections?: () => ConnectionUse };
  return typeof database.connections === 'function' ? () => database.connections!() : undefined;
}

/**
 * `GET /metrics` in the Prometheus text format (docs/operations.md, "Metrics and health"), and the
 * hook that measures every request. Requests are labelled by route pattern
 * (`/xapi/activities/state`, `/api/actors/:id`), never the raw URL, so the number of series stays
 * bounded whatever clients send.
 */
export function registerMetrics(app: FastifyInstance, sql: SqlClient, options: MetricsOptions = {}): void {
  const registry = new Registry();
  registry.setDefaultLabels({ worker: workerLabel() });
  for (const counter of PROCESS_COUNTERS) registry.registerMetric(counter);

  const labelNames = ['route', 'method', 'status'] as const;
  const requests = new Counter({
    name: 'learnbase_http_requests_total',
    help: 'HTTP requests answered, by route pattern, method and status.',
    labelNames,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'learnbase_http_request_duration_seconds',
    help: 'Time from receiving a request to sending its last byte, by route pattern, method and status.',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = { route: request.routeOptions.url ?? UNMATCHED, method: request.method, status: String(reply.statusCode) };
    requests.inc(labels);
    durations.observe(labels, reply.elapsedTime / 1000);
  });

  const connections = connectionsOf(sql);
  if (connections) {
    // Read at scrape time: a gauge set on every checkout would cost every query a call.
    const gauge = (name: string, help: string, pick: (use: ConnectionUse) => number) =>
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(pick(connections()));
        },
      });
    gauge('learnbase_db_connections_open', 'Database connections open (PGlite: always 1).', (use) => use.total);
    gauge('learnbase_db_connections_idle', 'Database connections open and not in use (PGlite: 1 when nothing runs).', (use) => use.idle);
    gauge(
      'learnbase_db_waiting',
      'Queries and transactions waiting for a database connection (PostgreSQL: the pool is at its maximum; PGlite: queued behind the one running).',
      (use) => use.waiting,
    );
  }

  // Node's figures first, then the app's; both are the text format, one after the other.
  const ownMetrics = async () => (await processRegistry().metrics()) + (await registry.metrics());
  // Under `serve --workers N` a scrape reaches one worker, which answers for all of them.
  if (cluster.isWorker) shareWithPrimary([processRegistry(), registry]);
  const everyWorker = (request: FastifyRequest) =>
    clusterMetricsText().catch(async (error: Error) => {
      request.log.warn({ err: error }, "could not gather the other workers' metrics: answering with this worker's own");
      return ownMetrics();
    });

  const tokenDigest = options.token === undefined ? undefined : digest(options.token);
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    if (!isLocal(request) && !(tokenDigest && bearerMatches(request, tokenDigest))) {
      throw new AppError(
        'metrics.forbidden',
        403,
        'Metrics are served to clients on this host, or with the bearer token set in LEARNBASE_METRICS_TOKEN.',
      );
    }
    const text = cluster.isWorker ? await everyWorker(request) : await ownMetrics();
    return reply.header('Cache-Control', 'no-store').type(registry.contentType).send(text);
  });
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;
const FORWARDED = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * A client on this host: the connection's own peer is a loopback address, and no proxy says it
 * forwarded the request. Deliberately not `request.ip`: with LEARNBASE_TRUST_PROXY that address
 * comes from `X-Forwarded-For`, which a client writes itself under `true`. A proxy on the same
 * host connects from loopback too: the forwarding headers it adds make its requests need the token.
 */
function isLocal(request: FastifyRequest): boolean {
  const peer = request.socket.remoteAddress;
  return peer !== undefined && LOOPBACK.test(peer) && FORWARDED.every((name) => request.headers[name] === undefined);
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Compared as SHA-256 digests, in constant time: equal lengths, and no early exit on the first wrong byte. */
function bearerMatches(request: FastifyRequest, expected: Buffer): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(request.headers.authorization ?? '');
  return match !== null && timingSafeEqual(digest(match[1]!), expected);
}
