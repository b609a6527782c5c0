import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from './app-error.js';
import { CSV_TYPE, JSON_TYPE, defused, flatten, negotiate, preferredType, quoted, toCsv } from './csv.js';

const OFFERED = [JSON_TYPE, CSV_TYPE];

describe('preferredType (RFC 9110 §12.5.1)', () => {
  it('answers the first offered type without an Accept header, or with one that allows anything', () => {
    for (const accept of [undefined, '', '  ', '*/*', 'application/*', 'application/json', 'text/*;q=0.5, */*']) {
      assert.equal(preferredType(accept, OFFERED), JSON_TYPE, String(accept));
    }
  });

  it('answers CSV when CSV is asked for or preferred', () => {
    for (const accept of [
      'text/csv',
      'TEXT/CSV',
      'text/*',
      'text/csv; charset=utf-8',
      'application/json;q=0.5, text/csv',
      'text/csv, */*;q=0.1',
    ]) {
      assert.equal(preferredType(accept, OFFERED), CSV_TYPE, accept);
    }
  });

  it('takes the quality of the most specific range, and breaks ties by the order offered', () => {
    assert.equal(preferredType('*/*;q=0.9, application/json;q=0.1', OFFERED), CSV_TYPE);
    assert.equal(preferredType('text/csv;q=0, */*', OFFERED), JSON_TYPE);
    assert.equal(preferredType('text/csv, application/json', OFFERED), JSON_TYPE);
    assert.equal(preferredType('text/csv;q=0.500, application/json;q=0.5', OFFERED), JSON_TYPE);
  });

  it('finds nothing acceptable when every range refuses, matches nothing, or is malformed', () => {
    for (const accept of [
      'application/xml',
      'text/html, image/*',
      '*/*;q=0',
      'application/json;q=0, text/csv;q=0',
      'garbage',
      'text/csv;q=2',
      'text/csv;q=x',
      '*/csv',
      'text/c s v',
      ',,,',
    ]) {
      assert.equal(preferredType(accept, OFFERED), undefined, accept);
    }
  });

  it('negotiate throws 406 request.not_acceptable naming what the route answers', () => {
    assert.equal(negotiate(undefined), JSON_TYPE);
    assert.equal(negotiate('text/csv'), CSV_TYPE);
    assert.throws(
      () => negotiate('application/xml'),
      (error: unknown) =>
        error instanceof AppError &&
        error.status === 406 &&
        error.code === 'request.not_acceptable' &&
        /application\/json or text\/csv/.test(error.message),
    );
  });
});

describe('toCsv (RFC 4180)', () => {
  it('flattens nested objects into dotted columns, arrays into their JSON', () => {
    assert.deepEqual(
      [...flatten({ id: 'a', direct: { people: 2, rate: 0.5 }, tags: ['x', 'y'], none: null, gone: undefined })],
      [
        ['id', 'a'],
        ['direct.people', 2],
        ['direct.rate', 0.5],
        ['tags', '["x","y"]'],
        ['none', null],
      ],
    );
  });

  it('writes a header row and one CRLF-ended row per item, the columns in the order they first appear', () => {
    const csv = toCsv(
      [
        { id: 'P1', n: { a: 1 } },
        { id: 'P2', n: { a: 2, b: true }, extra: null },
      ],
      ['id'],
    );
    assert.equal(csv, 'id,n.a,n.b,extra\r\nP1,1,,\r\nP2,2,true,\r\n');
  });

  it('keeps the given columns for an empty list', () => {
    assert.equal(toCsv([], ['id', 'people']), 'id,people\r\n');
  });

  it('quotes fields with a quote, a comma or a line break, doubling the quotes', () => {
    assert.equal(quoted('plain'), 'plain');
    assert.equal(quoted('a,b'), '"a,b"');
    assert.equal(quoted('say "hi"'), '"say ""hi"""');
    assert.equal(quoted('two\nlines'), '"two\nlines"');
    assert.equal(quoted('cr\r'), '"cr\r"');
    assert.equal(toCsv([{ 'a,b': 'x"y' }]), '"a,b"\r\n"x""y"\r\n');
  });

  it('prefixes text that a spreadsheet would run as a formula with a quote, header cells included; numbers stay numbers', () => {
    for (const text of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) assert.equal(defused(text), `'${text}`);
    for (const text of ['1', 'a=b', "'x", '', ' x', '\nx', 'x =1', '1-2', '\u2212' + '1', 'a\n=1']) assert.equal(defused(text), text);
  });

  it('defuses a formula after leading white space and line breaks, and the full-width signs (OWASP, "CSV Injection")', () => {
    const formulas = [' =1+1', '\n=1+1', '\r\n=1+1', '\t=1+1', '\r=1+1', '  \t \n+1', '\u00a0=1', '\u3000=1', '\ufeff=1', '\v@A1', '\f-1'];
    const fullWidth = ['\uff1d1+1', '\uff0b1', '\uff0d1', '\uff20SUM(A1)', ' \uff1dHYPERLINK("x")', '\n\uff0b1'];
    for (const text of [...formulas, ...fullWidth]) assert.equal(defused(text), `'${text}`, JSON.stringify(text));
    assert.equal(toCsv([{ title: ' =1+1', other: '\n=1+1', wide: '＝1+1' }]), `title,other,wide\r\n' =1+1,"'\n=1+1",'＝1+1\r\n`);
    assert.equal(toCsv([{ '=name': '=HYPERLINK("http://evil")', score: -0.5 }]), `'=name,score\r\n"'=HYPERLINK(""http://evil"")",-0.5\r\n`);
  });
});
