import type { FastifyInstance } from 'fastify';

/** The first round a minute after start (not in the way of starting), then one an hour. */
const FIRST_ROUND_MS = 60_000;
const ROUND_INTERVAL_MS = 3_600_000;

/**
 * Runs `work` hourly for as long as the app is open (the first time a minute after start), logging
 * what it answers at debug with `log.done` and a failure as a warning with `log.failed`: work that
 * a failed round leaves to the next.
 */
export function everyHour(app: FastifyInstance, work: () => Promise<unknown>, log: { done: string; failed: string }): void {
  const round = () =>
    work().then(
      (outcome) => app.log.debug({ outcome }, log.done),
      (error) => app.log.warn({ err: error }, log.failed),
    );
  const first = setTimeout(round, FIRST_ROUND_MS).unref();
  const hourly = setInterval(round, ROUND_INTERVAL_MS).unref();
  app.addHook('onClose', async () => {
    clearTimeout(first);
    clearInterval(hourly);
  });
}

/** An hourly chore (a module's `hourly`) that deletes rows past their lifetime (`what`). */
export const purging = (what: string, run: () => Promise<unknown>) => ({ run, done: `purged ${what}`, failed: `could not purge ${what}` });
