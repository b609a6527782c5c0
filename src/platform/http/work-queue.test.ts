import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkQueue } from './work-queue.js';

/** A task that runs until `finish` is called: the test decides when each one ends. */
function held() {
  let finish!: (value?: unknown) => void;
  let fail!: (error: Error) => void;
  const done = new Promise((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  let started = false;
  return {
    task: () => {
      started = true;
      return done;
    },
    get started() {
      return started;
    },
    finish,
    fail,
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('WorkQueue', () => {
  it('runs at most `running` at once, the others in arrival order as places free up', async () => {
    const queue = new WorkQueue('reports', 2, 10, 5);
    const tasks = [held(), held(), held(), held()];
    const runs = tasks.map((t) => queue.run(t.task));
    await tick();
    assert.deepEqual(
      tasks.map((t) => t.started),
      [true, true, false, false],
    );
    assert.deepEqual(queue.counts(), { running: 2, waiting: 2 });
    tasks[1].finish('b');
    await tick();
    assert.deepEqual(
      tasks.map((t) => t.started),
      [true, true, true, false],
    );
    // A failing task gives its place back too.
    tasks[0].fail(new Error('boom'));
    await assert.rejects(runs[0], /boom/);
    await tick();
    assert.equal(tasks[3].started, true);
    tasks[2].finish('c');
    tasks[3].finish('d');
    assert.deepEqual(await Promise.all(runs.slice(1)), ['b', 'c', 'd']);
    assert.deepEqual(queue.counts(), { running: 0, waiting: 0 });
  });

  it('skips a task whose client has gone by its turn, and gives its place to the next', async () => {
    const queue = new WorkQueue('reports', 1, 10, 5);
    const first = held();
    let leftRun = false;
    const runs = [
      queue.run(first.task),
      queue.run(
        async () => (leftRun = true),
        () => true,
      ),
      queue.run(async () => 'next'),
    ];
    first.finish('first');
    assert.equal(await runs[0], 'first');
    await assert.rejects(runs[1], { code: 'request.abandoned' });
    assert.equal(await runs[2], 'next');
    assert.equal(leftRun, false);
    assert.deepEqual(queue.counts(), { running: 0, waiting: 0 });
  });

  it('refuses one more than `waiting` at once with 503 request.server_busy and Retry-After, and takes it again later', async () => {
    const queue = new WorkQueue('reports', 1, 1, 5);
    const first = held();
    const second = held();
    const runs = [queue.run(first.task), queue.run(second.task)];
    await assert.rejects(
      queue.run(async () => 'never'),
      (error: Record<string, any>) => {
        assert.equal(error.code, 'request.server_busy');
        assert.equal(error.status, 503);
        assert.deepEqual(error.headers, { 'Retry-After': '5' });
        assert.deepEqual(error.details, { limit: 'reports', inFlight: 1, waiting: 1, retryAfterSeconds: 5 });
        return true;
      },
    );
    first.finish(1);
    second.finish(2);
    assert.deepEqual(await Promise.all(runs), [1, 2]);
    assert.equal(await queue.run(async () => 'again'), 'again');
  });
});
