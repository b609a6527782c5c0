import type { IncomingMessage } from 'node:http';
import { AppError } from './app-error.js';

/**
 * Runs at most `running` tasks at once, the others in arrival order as places free up, with at
 * most `waiting` of them waiting: one more is refused at once (503 `request.server_busy`, with
 * Retry-After). For requests that cost the database seconds of work and have no body to hold (the
 * reports: docs/operations.md, "Reports in flight"): ten of them at once would take ten pooled
 * connections and both cores for as long, and every other request would wait behind them for a
 * connection; queued, they hold nothing but their socket, and the rest of the server keeps its pace.
 *
 * Per process, as the pool it protects.
 */
export class WorkQueue {
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    /** Names the budget in the refusal: `reports`. */
    readonly name: string,
    readonly running: number,
    readonly waiting: number,
    /** What Retry-After says, in seconds. */
    readonly retryAfterSeconds: number,
  ) {}

  /**
   * Runs `task` when a place is free (now, or after those waiting before it); its place is given
   * back however it ends. A task whose client has gone (`gone`, asked when its turn comes) is not
   * run: a client that gave up waiting (a closed browser tab, a load generator's timeout) would
   * otherwise leave its work to delay everyone queued after it.
   */
  async run<T>(task: () => Promise<T>, gone: () => boolean = () => false): Promise<T> {
    if (this.active < this.running) this.active += 1;
    else if (this.queue.length >= this.waiting) throw this.busy();
    // The place is handed over by the task that gives it back: `active` does not change.
    else await new Promise<void>((resolve) => this.queue.push(resolve));
    try {
      if (gone()) throw new AppError('request.abandoned', 503, 'The client closed the connection before its turn came; nothing was done.');
      return await task();
    } finally {
      const next = this.queue.shift();
      if (next) next();
      else this.active -= 1;
    }
  }

  /** Tasks running, and waiting for a place. */
  counts(): { running: number; waiting: number } {
    return { running: this.active, waiting: this.queue.length };
  }

  private busy(): AppError {
    return new AppError(
      'request.server_busy',
      503,
      `This server is already running ${this.running} ${this.name} with ${this.waiting} more waiting; retry in ${this.retryAfterSeconds} s.`,
      {
        details: { limit: this.name, inFlight: this.running, waiting: this.waiting, retryAfterSeconds: this.retryAfterSeconds },
        headers: { 'Retry-After': String(this.retryAfterSeconds) },
      },
    );
  }
}

/** `run`'s `gone` for an HTTP request (its `raw` message): whether its client closed the connection. */
export const clientGone = (raw: IncomingMessage) => (): boolean => raw.socket?.destroyed === true;
