import { writeBatchRows } from '../process-metrics.js';
import { StorageError } from './storage-error.js';

export interface WriteBatcherOptions<Item> {
  /** What the batches write, for `/metrics` (`learnbase_db_write_batch_rows{writes="…"}`). */
  name: string;
  /** One statement for the whole batch: answers one result per item, in the items' order. */
  write: (items: Item[]) => Promise<boolean[]>;
  /**
   * What makes two items the same row. Two items with one key never share a batch: the later
   * waits for the next one, so it sees what the earlier wrote, as if they had run one by one.
   */
  keyOf: (item: Item) => string;
  /** Batches written at once; more items wait and go together in the next batch. */
  maxInFlight: number;
  /** Items in one batch at most. */
  maxBatch: number;
}

interface Waiting<Item> {
  item: Item;
  key: string;
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Coalesces single-row writes that arrive together into one statement: under load, the writes of
 * many concurrent requests cost one round trip and one commit instead of one each, and a request
 * is answered only once its batch has committed. With nothing else in flight a write goes alone
 * at the end of the current turn of the event loop (`setImmediate`), so the writes of requests
 * read in the same turn join it; while `maxInFlight` batches are being written, new items queue
 * and leave together when one of them ends.
 *
 * A batch that fails on a value it cannot store (or on a lost lock race) is written again one
 * item at a time, so one request's bad value never fails another's write. A batch that fails
 * because the database is unavailable fails each of its items with that error: whether it
 * committed is unknown, as for any single statement.
 */
export class WriteBatcher<Item> {
  private readonly queue: Waiting<Item>[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(private readonly options: WriteBatcherOptions<Item>) {}

  /** Writes one item with the next batch; answers its result once that batch has committed. */
  submit(item: Item): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, key: this.options.keyOf(item), resolve, reject });
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
      this.inFlight += 1;
      void this.run(batch).finally(() => {
        this.inFlight -= 1;
        this.schedule();
      });
    }
  }

  /** The oldest items, one per key, in queue order; the others keep their places. */
  private take(): Waiting<Item>[] {
    const batch: Waiting<Item>[] = [];
    const keys = new Set<string>();
    const rest: Waiting<Item>[] = [];
    for (const waiting of this.queue) {
      if (batch.length < this.options.maxBatch && !keys.has(waiting.key)) {
        keys.add(waiting.key);
        batch.push(waiting);
      } else rest.push(waiting);
    }
    this.queue.splice(0, this.queue.length, ...rest);
    return batch;
  }

  /** One statement: every one counts in the metric, a batch's or one item's written again alone. */
  private write(items: Item[]): Promise<boolean[]> {
    writeBatchRows.observe({ writes: this.options.name }, items.length);
    return this.options.write(items);
  }

  private async run(batch: Waiting<Item>[]): Promise<void> {
    try {
      const results = await this.write(batch.map((waiting) => waiting.item));
      batch.forEach((waiting, i) => waiting.resolve(results[i] ?? false));
    } catch (error) {
      if (batch.length === 1 || !writtenAgainAlone(error)) {
        for (const waiting of batch) waiting.reject(error);
        return;
      }
      for (const waiting of batch) {
        try {
          const [inserted] = await this.write([waiting.item]);
          waiting.resolve(inserted ?? false);
        } catch (alone) {
          waiting.reject(alone);
        }
      }
    }
  }
}

/** A failure one item may have caused, or that writing again may avoid. */
const writtenAgainAlone = (error: unknown): boolean =>
  error instanceof StorageError ? ['invalid_input', 'conflict', 'missing_reference', 'retry'].includes(error.kind) : true;
