import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { userFilterSql } from './scim-filter-rules.js';

/** The SQL of a filter over `a`, and the values it bound, numbered from $1. */
function compile(filter: string): { sql: string; values: unknown[] } {
  const values: unknown[] = [];
  const sql = userFilterSql(filter, 'a', (value) => {
    values.push(value);
    return `$${values.length}`;
  });
  return { sql, values };
}

const refuses = (filter: string, message: RegExp) =>
  assert.throws(() => compile(filter), { code: 'scim.invalidFilter', status: 400, message });

const USER_NAME = "(a.attributes ->> 'userName')";
const EMAIL = "(a.attributes ->> 'email')";

describe('userFilterSql', () => {
  it('finds a user by userName, ignoring case, as Entra and Okta look one up before creating it', () => {
    assert.deepEqual(compile('userName eq "ada@example.com"'), { sql: `lower(${USER_NAME}) = lower($1)`, values: ['ada@example.com'] });
    assert.deepEqual(compile('UserName EQ "Ada@Example.com"').values, ['Ada@Example.com']);
    assert.deepEqual(compile(`urn:ietf:params:scim:schemas:core:2.0:User:userName eq "x"`).sql, `lower(${USER_NAME}) = lower($1)`);
  });

  it('finds a user by externalId', () => {
    assert.deepEqual(compile('externalId eq "abc"'), { sql: "lower((a.attributes ->> 'externalId')) = lower($1)", values: ['abc'] });
  });

  it('reads emails, emails.value and the work email filter as the one email a person keeps', () => {
    assert.deepEqual(compile('emails eq "x"'), { sql: `lower(${EMAIL}) = lower($1)`, values: ['x'] });
    assert.deepEqual(compile('emails.value co "@example.com"').values, ['%@example.com%']);
    assert.deepEqual(compile('emails[type eq "work"].value eq "x"'), {
      sql: `(lower((CASE WHEN ${EMAIL} <> '' THEN 'work' END)) = lower($1) AND lower(${EMAIL}) = lower($2))`,
      values: ['work', 'x'],
    });
    assert.deepEqual(compile('emails[value ew "@example.com"]'), {
      sql: `lower(${EMAIL}) LIKE lower($1) ESCAPE '\\'`,
      values: ['%@example.com'],
    });
  });

  it('reads active as the deactivation mark', () => {
    assert.deepEqual(compile('active eq true'), { sql: 'a.deactivated_at IS NULL', values: [] });
    assert.deepEqual(compile('active eq false'), { sql: 'a.deactivated_at IS NOT NULL', values: [] });
    assert.deepEqual(compile('active ne "True"'), { sql: 'a.deactivated_at IS NOT NULL', values: [] });
    assert.deepEqual(compile('active eq "FALSE"'), { sql: 'a.deactivated_at IS NOT NULL', values: [] });
  });

  it('combines with and, or, not and parentheses, not reading a missing attribute as false', () => {
    assert.deepEqual(compile('userName sw "a" and not (title pr)'), {
      sql: `(lower(${USER_NAME}) LIKE lower($1) ESCAPE '\\' AND (((a.attributes ->> 'title') IS NOT NULL AND (a.attributes ->> 'title') <> '')) IS NOT TRUE)`,
      values: ['a%'],
    });
    assert.deepEqual(
      compile('(title eq "a" or title eq "b") and active eq true').sql,
      "((lower((a.attributes ->> 'title')) = lower($1) OR lower((a.attributes ->> 'title')) = lower($2)) AND a.deactivated_at IS NULL)",
    );
    assert.equal(compile('title ne "x"').sql, "(lower((a.attributes ->> 'title')) = lower($1)) IS NOT TRUE");
  });

  it('maps names, title and the enterprise attributes through the fixed table', () => {
    assert.equal(compile('displayName eq "Ada"').sql, 'lower(a.name) = lower($1)');
    assert.equal(compile('name.givenName eq "Ada"').sql, "lower((a.attributes ->> 'givenName')) = lower($1)");
    assert.equal(compile('name.familyName eq "L"').sql, "lower((a.attributes ->> 'familyName')) = lower($1)");
    assert.deepEqual(
      compile('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq 701984'),
      compile('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "701984"'),
    );
    assert.deepEqual(compile('urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department eq "R&D"'), {
      sql: "lower((a.attributes ->> 'department')) = lower($1)",
      values: ['R&D'],
    });
    assert.equal(compile('title gt "m"').sql, `lower((a.attributes ->> 'title')) COLLATE "C" > lower($1)`);
  });

  it('escapes LIKE wildcards in the bound value', () => {
    assert.deepEqual(compile('userName co "100%_a\\\\b"').values, ['%100\\%\\_a\\\\b%']);
  });

  it('decodes strings as JSON, which scim2-parse-filter does only for \\"', () => {
    assert.deepEqual(compile('title eq "caf\\u00e9 \\"bar\\""').values, ['café "bar"']);
    assert.deepEqual(compile('title eq "C:\\\\" or title eq "x"').values, ['C:\\', 'x']);
    assert.deepEqual(compile('title eq "a and b" and title pr').values, ['a and b']);
    refuses('title eq "a\\x41"', /string at character 10 that is not a JSON string/);
    refuses('title eq "open', /string at character 10 that is not a JSON string/);
    refuses('title eq "\\ud800"', /must not contain a lone surrogate/);
    refuses('title eq "a\\u0000"', /must not contain U\+0000/);
  });

  it('compares the id as a UUID, and matches nothing for a value that is none', () => {
    assert.deepEqual(compile('id eq "6F1C1D5E-8A39-4B55-9D36-2F1E8F3C0A11"'), {
      sql: 'a.id = $1::uuid',
      values: ['6F1C1D5E-8A39-4B55-9D36-2F1E8F3C0A11'],
    });
    assert.deepEqual(compile('id eq "not-a-uuid"'), { sql: 'false', values: [] });
    refuses('id co "6f1c"', /The operator "co" cannot be used on "id"/);
  });

  it('binds a hostile value, never writing it into the SQL', () => {
    const { sql, values } = compile('userName eq "x\\" or 1=1"');
    assert.equal(sql, `lower(${USER_NAME}) = lower($1)`);
    assert.deepEqual(values, ['x" or 1=1']);
    const quote = compile(`userName eq "x'); DROP TABLE actors; --"`);
    assert.equal(quote.sql, `lower(${USER_NAME}) = lower($1)`);
  });

  it('refuses what it cannot read or does not filter on, naming it', () => {
    refuses('userName eq', /The filter cannot be read/);
    refuses('userName eq "a" userName eq "b"', /The filter cannot be read/);
    refuses('nickName eq "Ada"', /names "nickName", which Users cannot be filtered on/);
    refuses('meta.lastModified gt "2011-05-13T04:42:34Z"', /names "meta\.lastModified"/);
    refuses('attributes->>\'x\' eq "a"', /The filter cannot be read/);
    refuses('phoneNumbers[type eq "work"]', /applies a value filter to "phoneNumbers"; only "emails" takes one/);
    refuses('emails[primary eq true]', /names "primary"/);
    refuses('active co "t"', /The operator "co" cannot be used on "active"/);
    refuses('active eq "yes"', /"active eq" needs true or false, not "yes"/);
    refuses('title eq true', /"title eq" needs a string to compare with, not true/);
    refuses('title eq null', /not null/);
  });

  it('bounds the length, the nesting and the number of comparisons', () => {
    refuses(`userName eq "${'x'.repeat(3000)}"`, /The filter is 3014 characters long; at most 2000 are read/);
    refuses(`${'not ('.repeat(21)}title pr${')'.repeat(21)}`, /nested deeper than 20 levels/);
    assert.doesNotThrow(() => compile(`${'not ('.repeat(19)}title pr${')'.repeat(19)}`));
    const comparisons = (count: number) => Array.from({ length: count }, (_, index) => `title eq "${index}"`).join(' or ');
    assert.equal(compile(comparisons(100)).values.length, 100);
    refuses(comparisons(101), /more than 100 comparisons/);
  });

  it('refuses a table alias that is not one', () => {
    assert.throws(() => userFilterSql('title pr', 'a; DROP TABLE actors', () => '$1'), /is not a table alias/);
  });
});
