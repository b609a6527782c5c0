import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeBatchRows } from '../process-metrics.js';
import { StorageError } from './storage-error.js';
import { Refused, WriteBatcher, type WriteBatcherOptions } from './write-batcher.js';

interface Row {
  key: string;
  value: string;
}

/** The metric's `_count` and `_sum` for this test's batchers. */
async function statementsCounted(): Promise<{ count: number; sum: number }> {
  const { values } = await writeBatchRows.get();
  const of = (name: string) => values.find((value) => value.metricName === name && value.labels.writes === 'test_rows')?.value ?? 0;
  return { count: of('learnbase_db_write_batch_rows_count'), sum: of('learnbase_db_write_batch_rows_sum') };
}

/** A store behind a batcher that records each batch it was given; `fail` decides a batch's fate. */
function recordingBatcher(options: { maxInFlight?: number; maxBatch?: number; fail?: (rows: Row[]) => unknown } = {}) {
  const stored = new Map<string, string>();
  const batches: string[][] = [];
  const batcher = new WriteBatcher<Row>({
    name: 'test_rows',
    keyOf: (row) => row.key,
    maxInFlight: options.maxInFlight ?? 1,
    maxBatch: options.maxBatch ?? 100,
    write: async (rows) => {
      batches.push(rows.map((row) => row.value));
      await new Promise((resolve) => setTimeout(resolve, 5));
      const failure = options.fail?.(rows);
      if (failure) throw failure;
      return rows.map((row) => {
        if (stored.has(row.key)) return false;
        stored.set(row.key, row.value);
        return true;
      });
    },
  });
  return { batcher, stored, batches };
}

/**
 * A batcher whose write records each batch (its values, and `start`/`end` events) and answers
 * each item its value, or a Refused where `refuse` says so.
 */
function eventBatcher(options: Partial<WriteBatcherOptions<Row, string>> & { refuse?: (row: Row) => unknown } = {}) {
  const batches: string[][] = [];
  const events: string[] = [];
  const batcher = new WriteBatcher<Row, string>({
    name: 'test_rows',
    maxInFlight: 1,
    maxBatch: 100,
    ...options,
    write: async (rows) => {
      const values = rows.map((row) => row.value);
      batches.push(values);
      events.push(`start ${values}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
      events.push(`end ${values}`);
      return rows.map((row) => {
        const refusal = options.refuse?.(row);
        return refusal ? new Refused(refusal) : row.value;
      });
    },
  });
  return { batcher, batches, events };
}

describe('WriteBatcher', () => {
  it('writes the items submitted together in one batch, and answers each its own result', async () => {
    const { batcher, batches } = recordingBatcher();
    const results = await Promise.all(['a', 'b', 'c'].map((key) => batcher.submit({ key, value: key })));
    assert.deepEqual(results, [true, true, true]);
    assert.deepEqual(batches, [['a', 'b', 'c']]);
  });

  it('queues what arrives while the batches in flight are written, and sends it together next', async () => {
    const { batcher, batches } = recordingBatcher({ maxInFlight: 1 });
    const first = batcher.submit({ key: 'a', value: 'a' });
    await new Promise((resolve) => setImmediate(resolve));
    const rest = ['b', 'c', 'd'].map((key) => batcher.submit({ key, value: key }));
    assert.deepEqual(await Promise.all([first, ...rest]), [true, true, true, true]);
    assert.deepEqual(batches, [['a'], ['b', 'c', 'd']]);
  });

  it('never puts two items of one key in a batch: the later sees what the earlier wrote', async () => {
    const { batcher, batches, stored } = recordingBatcher();
    const results = await Promise.all([
      batcher.submit({ key: 'k', value: 'first' }),
      batcher.submit({ key: 'other', value: 'other' }),
      batcher.submit({ key: 'k', value: 'second' }),
    ]);
    assert.deepEqual(results, [true, true, false]);
    assert.deepEqual(batches, [['first', 'other'], ['second']]);
    assert.equal(stored.get('k'), 'first');
  });

  it('keeps batches to maxBatch items', async () => {
    const { batcher, batches } = recordingBatcher({ maxBatch: 2 });
    await Promise.all(['a', 'b', 'c', 'd', 'e'].map((key) => batcher.submit({ key, value: key })));
    assert.deepEqual(batches, [['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('writes a batch refused for one bad value again item by item: only that item fails', async () => {
    const bad = new StorageError('invalid_input', 'database.invalid_input', 'a value the database cannot hold');
    const { batcher, stored } = recordingBatcher({ fail: (rows) => rows.some((row) => row.value === 'bad') && bad });
    const before = await statementsCounted();
    const results = await Promise.allSettled(['a', 'bad', 'c'].map((value) => batcher.submit({ key: value, value })));
    assert.deepEqual(
      results.map((result) => result.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal((results[1] as PromiseRejectedResult).reason, bad);
    assert.deepEqual([...stored.keys()].sort(), ['a', 'c']);
    const after = await statementsCounted();
    assert.deepEqual(
      { count: after.count - before.count, sum: after.sum - before.sum },
      { count: 4, sum: 6 },
      'the batch of 3, then 3 alone',
    );
  });

  it('fails every item of a batch the database could not take (unavailable), without writing them again', async () => {
    const down = new StorageError('unavailable', 'database.unavailable', 'the database is not reachable');
    const { batcher, batches, stored } = recordingBatcher({ fail: () => down });
    const results = await Promise.allSettled(['a', 'b'].map((key) => batcher.submit({ key, value: key })));
    assert.ok(results.every((result) => result.status === 'rejected' && result.reason === down));
    assert.equal(batches.length, 1);
    assert.equal(stored.size, 0);
  });

  it('goes on after a failed batch: the next items are written', async () => {
    let failing = true;
    const { batcher } = recordingBatcher({ fail: () => failing && new StorageError('unavailable', 'database.unavailable', 'down') });
    await assert.rejects(batcher.submit({ key: 'a', value: 'a' }));
    failing = false;
    assert.equal(await batcher.submit({ key: 'b', value: 'b' }), true);
  });

  it('sameKey together: puts the items of one key in one batch, in arrival order', async () => {
    const { batcher, batches } = eventBatcher({ keyOf: (row) => row.key, sameKey: 'together' });
    const rows = [
      { key: 'a', value: 'a1' },
      { key: 'b', value: 'b1' },
      { key: 'a', value: 'a2' },
      { key: 'a', value: 'a3' },
    ];
    assert.deepEqual(await Promise.all(rows.map((row) => batcher.submit(row))), ['a1', 'b1', 'a2', 'a3']);
    assert.deepEqual(batches, [['a1', 'b1', 'a2', 'a3']]);
  });

  it("sameKey together: while a batch holding a key is written, the key's new items wait and go together in the next", async () => {
    const { batcher, batches, events } = eventBatcher({ keyOf: (row) => row.key, sameKey: 'together', maxInFlight: 2 });
    const first = batcher.submit({ key: 'a', value: 'a1' });
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [
      { key: 'a', value: 'a2' },
      { key: 'b', value: 'b1' },
      { key: 'a', value: 'a3' },
    ].map((row) => batcher.submit(row));
    assert.deepEqual(await Promise.all([first, ...rest]), ['a1', 'a2', 'b1', 'a3']);
    // b1 takes the free place at once; a2 and a3 wait for a1's batch to end.
    assert.deepEqual(batches, [['a1'], ['b1'], ['a2', 'a3']]);
    assert.ok(events.indexOf('end a1') < events.indexOf('start a2,a3'), events.join(' | '));
  });

  it('groupOf: a batch holds the items of one group only, the others keep their order', async () => {
    const { batcher, batches } = eventBatcher({ groupOf: (row) => row.key });
    const rows = ['x1', 'y1', 'x2', 'y2', 'x3'].map((value) => ({ key: value[0], value }));
    assert.deepEqual(await Promise.all(rows.map((row) => batcher.submit(row))), ['x1', 'y1', 'x2', 'y2', 'x3']);
    assert.deepEqual(batches, [
      ['x1', 'x2', 'x3'],
      ['y1', 'y2'],
    ]);
  });

  it('Refused: refuses that one item with its error, answers the others, and writes nothing again alone', async () => {
    const refusal = new Error('412');
    const { batcher, batches } = eventBatcher({ refuse: (row) => row.value === 'b' && refusal });
    const before = await statementsCounted();
    const results = await Promise.allSettled(['a', 'b', 'c'].map((value) => batcher.submit({ key: value, value })));
    assert.deepEqual(results, [
      { status: 'fulfilled', value: 'a' },
      { status: 'rejected', reason: refusal },
      { status: 'fulfilled', value: 'c' },
    ]);
    assert.deepEqual(batches, [['a', 'b', 'c']]);
    const after = await statementsCounted();
    assert.deepEqual({ count: after.count - before.count, sum: after.sum - before.sum }, { count: 1, sum: 3 });
  });
});
