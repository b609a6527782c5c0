import type { FastifyInstance } from 'fastify';

/** The first round a minute after start (not in the way of starting), then one an hour. */
const FIRST_ROUND_MS = 60_000;
const ROUND_INTERVAL_MS = 3_600_000;

/**
 * Runs `purge` hourly for as long as the app is open (the first time a minute after start), logging
 * what it answers at debug and a failure as a warning naming `what`: the deletion of rows past their
 * lifetime, which a failed round leaves to the next.
 */
export function purgeHourly(app: FastifyInstance, what: string, purge: () => Promise<unknown>): void {
  const round = () =>
    purge().then(
      (purged) => app.log.debug({ purged }, `purged ${what}`),
      (error) => app.log.warn({ err: error }, `could not purge ${what}`),
    );
  const first = setTimeout(round, FIRST_ROUND_MS).unref();
  const hourly = setInterval(round, ROUND_INTERVAL_MS).unref();
  app.addHook('onClose', async () => {
    clearTimeout(first);
    clearInterval(hourly);
  });
}
