import { writeBatchRows } from '../process-metrics.js';
import { StorageError } from './storage-error.js';

/**
 * What a batch answers for one item that failed on its own (a 409, a 412: a decision, not a
 * failure of the batch): the item's request is refused with `error`, the others keep their results.
 */
export class Refused {
  constructor(readonly error: unknown) {}
}

export interface WriteBatcherOptions<Item, Result> {
  /** What the batches write, for `/metrics` (`learnbase_db_write_batch_rows{writes="…"}`). */
  name: string;
  /**
   * Writes the batch (one statement, or one transaction): answers one result per item, in the
   * items' order, a `Refused` for an item refused on its own. Throwing fails the whole batch.
   */
  write: (items: Item[]) => Promise<Array<Result | Refused>>;
  /**
   * What makes two items the same row, and what a batch does with two of them (`sameKey`):
   * - `apart` (the default): never in one batch: the later waits for the next, so it sees what
   *   the earlier wrote, as if they had run one by one;
   * - `together`: in one batch, in arrival order, and while a batch holding the key is written,
   *   the key's new items wait for it to end, then go together in the next (a write that folds
   *   them into one read and one write of the row, such as merges into one document).
   */
  keyOf?: (item: Item) => string;
  sameKey?: 'apart' | 'together';
  /** What a batch may not mix: a batch holds the items of one group only (a tenant). */
  groupOf?: (item: Item) => string;
  /** Batches written at once; more items wait and go together in the next batch. */
  maxInFlight: number;
  /** Items in one batch at most. */
  maxBatch: number;
}

interface Waiting<Item, Result> {
  item: Item;
  key: string | undefined;
  group: string | undefined;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces the writes of concurrent requests into one statement or one transaction: under load,
 * the writes of many requests cost one round trip (or one transaction's) and one commit instead
 * of one each, and a request is answered only once its batch has committed. With nothing else in
 * flight a write goes alone at the end of the current turn of the event loop (`setImmediate`),
 * so the writes of requests read in the same turn join it; while `maxInFlight` batches are being
 * written, new items queue and leave together when one of them ends.
 *
 * A batch that fails on a value it cannot store (or on a lost lock race, or an error of its own
 * making) is written again one item at a time, so one request's bad value never fails another's
 * write. A batch that fails because the database is unavailable fails each of its items with that
 * error: whether it committed is unknown, as for any single statement.
 */
export class WriteBatcher<Item, Result = boolean> {
  private readonly queue: Waiting<Item, Result>[] = [];
  /** `together`: the keys of the batches being written, whose new items wait (so a key is in one batch at most). */
  private readonly busyKeys = new Set<string>();
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: WriteBatcherOptions<Item, Result>) {}

  /** Writes one item with the next batch; answers its result once that batch has committed. */
  submit(item: Item): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, key: this.options.keyOf?.(item), group: this.options.groupOf?.(item), resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.options.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      if (batch.length === 0) return;
      const keys = this.options.sameKey === 'together' ? new Set(batch.map((waiting) => waiting.key as string)) : undefined;
      for (const key of keys ?? []) this.busyKeys.add(key);
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        for (const key of keys ?? []) this.busyKeys.delete(key);
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  /** The oldest items that may go together, in queue order; the others keep their places. */
  private take(): Waiting<Item, Result>[] {
    const together = this.options.sameKey === 'together';
    const batch: Waiting<Item, Result>[] = [];
    const keys = new Set<string | undefined>();
    const rest: Waiting<Item, Result>[] = [];
    let group: string | undefined;
    for (const waiting of this.queue) {
      const fits =
        batch.length < this.options.maxBatch &&
        (batch.length === 0 || waiting.group === group) &&
        (waiting.key === undefined || (together ? !this.busyKeys.has(waiting.key) : !keys.has(waiting.key)));
      if (fits) {
        if (batch.length === 0) group = waiting.group;
        keys.add(waiting.key);
        batch.push(waiting);
      } else rest.push(waiting);
    }
    this.queue.splice(0, this.queue.length, ...rest);
    return batch;
  }

  /** One write: every one counts in the metric, a batch's or one item's written again alone. */
  private write(items: Item[]): Promise<Array<Result | Refused>> {
    writeBatchRows.observe({ writes: this.options.name }, items.length);
    return this.options.write(items);
  }

  private async run(batch: Waiting<Item, Result>[]): Promise<void> {
    try {
      const results = await this.write(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => settle(waiting, results[i]));
    } catch (error) {
      if (batch.length === 1 || !writtenAgainAlone(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) {
        try {
          const [result] = await this.write([waiting.item]);
          settle(waiting, result);
        } catch (alone) {
          waiting.reject(alone);
        }
      }
    }
  }
}

function settle<Item, Result>(waiting: Waiting<Item, Result>, result: Result | Refused | undefined): void {
  if (result instanceof Refused) waiting.reject(result.error);
  else waiting.resolve(result as Result);
}

/** A failure one item may have caused, or that writing again may avoid. */
const writtenAgainAlone = (error: unknown): boolean =>
  error instanceof StorageError ? ['invalid_input', 'conflict', 'missing_reference', 'retry'].includes(error.kind) : true;
