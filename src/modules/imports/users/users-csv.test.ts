import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../platform/http/app-error.js';
import { parseUsersCsv, type CsvUser } from './users-csv.js';

const csv = (text: string) => parseUsersCsv(Buffer.from(text, 'utf8'));
const refused = (text: string, message: RegExp) =>
  assert.throws(
    () => csv(text),
    (error: unknown) =>
      error instanceof AppError && error.status === 400 && error.code === 'imports.invalid_csv' && message.test(error.message),
  );

describe('parseUsersCsv', () => {
  it('reads a name column and one column per attribute, in any order', () => {
    assert.deepEqual(csv('email,name,employeeId\r\nada@example.com,Ada Lovelace,E1\nbob@example.com,Bob,E2\n'), [
      { name: 'Ada Lovelace', attributes: { email: 'ada@example.com', employeeId: 'E1' } },
      { name: 'Bob', attributes: { email: 'bob@example.com', employeeId: 'E2' } },
    ]);
  });

  it('follows RFC 4180 quoting: commas, doubled quotes and line breaks inside quotes', () => {
    assert.deepEqual(csv('name,title\n"Lovelace, Ada","The ""first"" programmer\nof note"\n'), [
      { name: 'Lovelace, Ada', attributes: { title: 'The "first" programmer\nof note' } },
    ]);
  });

  it('reads UTF-8 with or without a byte-order mark', () => {
    const text = 'name,city\nZoë,Zürich\n';
    assert.deepEqual(parseUsersCsv(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])), csv(text));
    assert.deepEqual(csv(text), [{ name: 'Zoë', attributes: { city: 'Zürich' } }]);
  });

  it('reads an empty cell as an attribute the user does not have, and skips blank lines', () => {
    assert.deepEqual(csv('name,email,employeeId\nAda,,E1\n\nBob,bob@example.com,\n'), [
      { name: 'Ada', attributes: { employeeId: 'E1' } },
      { name: 'Bob', attributes: { email: 'bob@example.com' } },
    ]);
  });

  it('keeps a column named like an Object member as a plain attribute', () => {
    const [user] = csv('name,__proto__,toString\nAda,E1,x\n') as CsvUser[];
    assert.deepEqual(Object.entries(user.attributes), [
      ['__proto__', 'E1'],
      ['toString', 'x'],
    ]);
    assert.equal(Object.getPrototypeOf(user.attributes), Object.prototype);
  });

  it('answers no users for a header alone', () => {
    assert.deepEqual(csv('name,email\n'), []);
  });

  it('refuses a file that is not such a table, naming the problem', () => {
    refused('', /empty/);
    refused('email\nada@example.com\n', /no "name" column/);
    refused('name,email,email\nAda,a,b\n', /"email" twice/);
    refused('name,,email\nAda,x,a\n', /Column 2/);
    refused('name,email\nAda\n', /cannot be read/);
    refused('name,email\n"Ada,a@example.com\n', /cannot be read/);
  });
});
