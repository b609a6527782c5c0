import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isConnectionError } from '../database/postgres-errors.js';
import { StorageError } from '../database/storage-error.js';
import { httpErrorOf } from './storage-errors.js';

const withCode = (code: string, message = 'failed') => Object.assign(new Error(message), { code });

describe('httpErrorOf: database errors as the API answers them', () => {
  it('maps constraint violations to 409', () => {
    assert.equal(httpErrorOf(withCode('23505'))?.status, 409);
    assert.equal(httpErrorOf(withCode('23505'))?.code, 'database.conflict');
    assert.equal(httpErrorOf(withCode('23503'))?.code, 'database.missing_reference');
  });

  it('maps text the database cannot hold to 400, but not an invalid cast (our own bug)', () => {
    for (const code of ['22021', '22P05']) {
      assert.equal(httpErrorOf(withCode(code))?.status, 400, code);
      assert.equal(httpErrorOf(withCode(code))?.code, 'request.invalid_text', code);
    }
    assert.equal(httpErrorOf(withCode('22P02')), undefined);
  });

  it('maps serialization failures, deadlocks and statement timeouts to a 503 with Retry-After', () => {
    for (const [sqlstate, code] of [
      ['40001', 'database.retry'],
      ['40P01', 'database.retry'],
      ['57014', 'database.timeout'],
    ]) {
      const error = httpErrorOf(withCode(sqlstate));
      assert.equal(error?.status, 503, sqlstate);
      assert.equal(error?.code, code);
      assert.equal(error?.headers?.['Retry-After'], '1');
    }
  });

  it('maps SQLSTATEs that end or refuse the session to database.unavailable', () => {
    for (const sqlstate of ['57P01', '57P02', '57P03', '57P05', '08006', '08003', '08001', '08P01', '53300', '25P03']) {
      const error = httpErrorOf(withCode(sqlstate, 'terminating connection due to administrator command'));
      assert.equal(error?.status, 503, sqlstate);
      assert.equal(error?.code, 'database.unavailable', sqlstate);
      assert.deepEqual(error?.headers, { 'Retry-After': '1' });
    }
  });

  it('maps socket errors of a lost or refused connection to database.unavailable', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']) {
      assert.equal(httpErrorOf(withCode(code, `read ${code}`))?.code, 'database.unavailable', code);
    }
  });

  it("maps node-postgres's own connection messages, which carry no code, to database.unavailable", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'Connection terminated',
      'Connection terminated due to connection timeout',
      'timeout exceeded when trying to connect',
      'Client has encountered a connection error and is not queryable',
      'Client was closed and is not queryable',
    ]) {
      assert.equal(httpErrorOf(new Error(message))?.code, 'database.unavailable', message);
    }
  });

  it('looks through a cause and through the errors of an AggregateError', () => {
    const timedOut = new Error('connect failed', { cause: withCode('ETIMEDOUT') });
    assert.equal(httpErrorOf(timedOut)?.code, 'database.unavailable');
    const everyAddress = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'connect failed');
    assert.equal(httpErrorOf(everyAddress)?.code, 'database.unavailable');
  });

  it('leaves other errors, and messages that only mention a connection, to the 500 path', () => {
    assert.equal(httpErrorOf(new Error('connection to 10.0.0.7 refused')), undefined);
    assert.equal(httpErrorOf(new Error('Connection terminated unexpectedly, or so we thought')), undefined);
    assert.equal(httpErrorOf(withCode('42601', 'syntax error')), undefined);
    assert.equal(httpErrorOf(withCode('ERR_SOMETHING')), undefined);
    assert.equal(httpErrorOf('a string'), undefined);
    assert.equal(httpErrorOf(null), undefined);
    assert.equal(httpErrorOf(undefined), undefined);
  });

  it('stops at a cycle of causes', () => {
    const looped: Error & { cause?: unknown } = new Error('outer');
    looped.cause = looped;
    assert.equal(isConnectionError(looped), false);
  });
});

describe('httpErrorOf: storage errors thrown as such', () => {
  it('answers a StorageError by its kind, with its own code and message, and Retry-After on a 503', () => {
    const inUse = httpErrorOf(new StorageError('folder_in_use', 'database.folder_in_use', 'The data folder is in use.'));
    assert.equal(inUse?.status, 409);
    assert.equal(inUse?.code, 'database.folder_in_use');
    assert.equal(inUse?.message, 'The data folder is in use.');
    assert.equal(inUse?.headers, undefined);
    const gone = httpErrorOf(new StorageError('unavailable', 'database.unavailable', 'gone'));
    assert.equal(gone?.status, 503);
    assert.deepEqual(gone?.headers, { 'Retry-After': '1' });
  });
});
