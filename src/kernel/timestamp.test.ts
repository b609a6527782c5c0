import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTimestamp } from './timestamp.js';

describe('parseTimestamp', () => {
  it('reads ISO 8601 date-times with Z, an offset, or none (UTC)', () => {
    assert.equal(parseTimestamp('2024-05-01T12:00:00Z')?.toISOString(), '2024-05-01T12:00:00.000Z');
    assert.equal(parseTimestamp('2008-09-15T15:53:00.601+02:00')?.toISOString(), '2008-09-15T13:53:00.601Z');
    assert.equal(parseTimestamp('2008-09-15T15:53:00.601+0200')?.toISOString(), '2008-09-15T13:53:00.601Z');
    assert.equal(parseTimestamp('2024-05-01T12:00')?.toISOString(), '2024-05-01T12:00:00.000Z');
    assert.equal(parseTimestamp('2024-05-01T12:00:00.123456Z')?.toISOString(), '2024-05-01T12:00:00.123Z');
  });

  it('refuses the unknown-offset forms, impossible dates and other text', () => {
    for (const text of [
      '2008-09-15T15:53:00.601-00',
      '2008-09-15T15:53:00.601-0000',
      '2008-09-15T15:53:00.601-00:00',
      '2021-02-29T00:00:00Z',
      '2021-13-01T00:00:00Z',
      '2021-01-01T24:00:00Z',
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '01/011/2015',
      '2021-01-01',
      'should fail',
    ]) {
      assert.equal(parseTimestamp(text), undefined, text);
    }
    assert.equal(parseTimestamp(12), undefined);
  });

  it('refuses a timestamp without a zone when one is required (query parameters)', () => {
    assert.equal(parseTimestamp('2024-05-01T12:00:00', { requireZone: true }), undefined);
    assert.equal(parseTimestamp('2024-05-01T12:00:00+01:00', { requireZone: true })?.toISOString(), '2024-05-01T11:00:00.000Z');
    assert.equal(parseTimestamp('2024-02-30T00:00:00Z', { requireZone: true }), undefined);
  });
});
