import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { writeBatchRows } from '../process-metrics.js';
import { StorageError } from './storage-error.js';
import { WriteBatcher } from './write-batcher.js';

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
});
