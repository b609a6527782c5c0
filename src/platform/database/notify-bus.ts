import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { SqlClient } from './sql-client.js';

/**
 * Messages between the server processes of one database, for invalidating per-process caches
 * ("scale-out" in the design). Delivery is best-effort and at most once: a listener that may
 * have missed messages is told so through `onGap`, and must then forget what it cached.
 */
export interface NotifyBus {
  /**
   * Sends `payload` (at most 7,999 bytes, PostgreSQL's limit) to every listener of `channel` in
   * every process on the database, this one included.
   */
  publish(channel: string, payload: string): Promise<void>;
  /**
   * Calls `onMessage` with every payload published on `channel` from now on, and `onGap` after
   * an interruption during which messages may have been lost. Resolves once listening (or, when
   * the database cannot be reached, once a reconnection is scheduled); the resolved function stops.
   */
  listen(channel: string, onMessage: (payload: string) => void, onGap?: () => void): Promise<() => void>;
  /** Stops listening and releases the connection, if this object owns one. */
  close(): Promise<void>;
}

interface Listener {
  channel: string;
  onMessage: (payload: string) => void;
  onGap?: () => void;
}

/**
 * One process on its own database (a PGlite folder, which only one process may open, or a test):
 * messages go through an in-process emitter. Every user of the same `SqlClient` object gets the
 * same instance, so two apps built on one database hear each other, as two processes would.
 */
export class LocalNotifyBus implements NotifyBus {
  private static readonly bySql = new WeakMap<SqlClient, LocalNotifyBus>();
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  static of(sql: SqlClient): LocalNotifyBus {
    let found = LocalNotifyBus.bySql.get(sql);
    if (!found) LocalNotifyBus.bySql.set(sql, (found = new LocalNotifyBus()));
    return found;
  }

  async publish(channel: string, payload: string): Promise<void> {
    this.emitter.emit(channel, payload);
  }

  async listen(channel: string, onMessage: (payload: string) => void): Promise<() => void> {
    this.emitter.on(channel, onMessage);
    return () => this.emitter.off(channel, onMessage);
  }

  async close(): Promise<void> {}
}

export interface PostgresNotifyBusOptions {
  /** Where errors of the listening connection are reported (they never throw). */
  onError?: (error: Error) => void;
  /** First delay before reconnecting, doubled up to 5 s. */
  retryMs?: number;
}

/**
 * PostgreSQL `LISTEN/NOTIFY`. Publishing goes through the application's pool (`pg_notify`);
 * listening needs a session of its own, so this keeps one dedicated connection and reconnects it
 * with backoff when it drops, then reports a gap to every listener.
 */
export class PostgresNotifyBus implements NotifyBus {
  private readonly listeners = new Set<Listener>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs: number;
  private closed = false;
  /** Set while messages may have been missed: a failed connection attempt or a dropped connection. */
  private interrupted = false;

  constructor(
    private readonly connectionString: string,
    private readonly publisher: SqlClient,
    private readonly options: PostgresNotifyBusOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 100;
  }

  async publish(channel: string, payload: string): Promise<void> {
    await this.publisher.query('SELECT pg_notify($1, $2)', [channel, payload]);
  }

  async listen(channel: string, onMessage: (payload: string) => void, onGap?: () => void): Promise<() => void> {
    const listener: Listener = { channel, onMessage, onGap };
    const isNewChannel = ![...this.listeners].some((other) => other.channel === channel);
    this.listeners.add(listener);
    if (!this.client) await this.connect();
    else if (isNewChannel) await this.client.query(`LISTEN ${quoteIdentifier(channel)}`).catch((error) => this.report(error));
    return () => {
      this.listeners.delete(listener);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    await this.connecting;
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private connect(): Promise<void> {
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (this.closed) return;
    // The connection only ever waits for messages: TCP keep-alive is what notices a peer that
    // vanished without closing it (a failover, a dropped route), so that it is replaced.
    const client = new pg.Client({
      connectionString: this.connectionString,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('notification', (message) => {
      for (const listener of this.listeners) {
        if (listener.channel === message.channel) listener.onMessage(message.payload ?? '');
      }
    });
    client.on('error', (error) => {
      this.report(error);
      this.dropped(client);
    });
    client.on('end', () => this.dropped(client));
    try {
      await client.connect();
      for (const channel of new Set([...this.listeners].map((listener) => listener.channel))) {
        await client.query(`LISTEN ${quoteIdentifier(channel)}`);
      }
    } catch (error) {
      this.report(error as Error);
      this.interrupted = true;
      await client.end().catch(() => {});
      this.scheduleReconnect();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.retryMs = this.options.retryMs ?? 100;
    // Anything published while no connection listened is lost: listeners must forget their caches.
    if (this.interrupted) for (const listener of this.listeners) listener.onGap?.();
    this.interrupted = false;
  }

  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.interrupted = true;
    client.end().catch(() => {});
    for (const listener of this.listeners) listener.onGap?.();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    const delay = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, 5_000);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, delay);
    this.retryTimer.unref();
  }

  private report(error: Error): void {
    this.options.onError?.(error);
  }
}

/** Channel names come from code, never from input; quoting keeps LISTEN safe all the same. */
const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
