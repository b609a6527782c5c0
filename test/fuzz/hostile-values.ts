import { createHash } from 'node:crypto';
import fc from 'fast-check';

/**
 * The hostile values of the route fuzz test (routes.fuzz.test.ts): text, numbers, dates, JSON and
 * bodies that break naive code. What counts as hostile is what a client can actually send over a
 * socket: URLs stay ASCII (anything else is percent-encoded, lone surrogates as the bytes of their
 * WTF-8 form), header values stay within the bytes Node's HTTP parser accepts, bodies are any bytes.
 */

// ---------------------------------------------------------------------------------------------
// Hostile text

const DEEP = 10_000;
/** A 10,000-deep array and object: JSON parsers recurse, and so may whatever walks the value. */
export const DEEP_ARRAY = '['.repeat(DEEP) + ']'.repeat(DEEP);
export const DEEP_OBJECT = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;

const LONG = 'x'.repeat(10_000);

/**
 * `length` characters of base64url that PostgreSQL cannot compress: a B-tree entry holds about
 * 2,700 bytes after compression, so a run of one letter fits where the same length of this does
 * not (issue 24 found 500s with such values in every indexed column).
 */
export function incompressible(length: number, seed = 'fuzz'): string {
  let text = '';
  for (let i = 0; text.length < length; i++) text += createHash('sha256').update(`${seed}:${i}`).digest('base64url');
  return text.slice(0, length);
}

/** Text around and far past an index entry's limit: ASCII, two-byte and four-byte characters, none compressible. */
export const longIndexedText: fc.Arbitrary<string> = fc.constantFrom(
  incompressible(1_900),
  incompressible(2_100),
  incompressible(2_800),
  incompressible(9_000),
  [...incompressible(1_400)]
    .map((c) => `${c}\u00e9`)
    .join('')
    .slice(0, 2_400),
  [...incompressible(800)].map((c) => `${c}\u{1F600}`).join(''),
);

/** Strings that break naive code: NUL, lone surrogates, byte-order marks, prototype keys, long runs. */
const SPECIAL_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  '\uDFFF',
  'x\uDBFFy',
  '\uDC00\uD800',
  '\uFFFF',
  '\uFEFF',
  '\u202E',
  '\u00e9',
  '%00',
  '%',
  '\\',
  '"',
  "'",
  '\n',
  '\r\n',
  '${x}',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'toString',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '0x10',
  LONG,
  '\u0000'.repeat(2_000),
  '\uD800'.repeat(2_000),
];

/** Any JS string, biased to the special ones: NUL, lone surrogates (`unit: 'binary'`), long runs. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SPECIAL_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  {
    weight: 2,
    arbitrary: fc.string({
      unit: fc.constantFrom('\u0000', '\uD800', '\uDC00', 'a', '%', '&', '=', '+', '\u00e9', '\n', '"', '\\'),
      maxLength: 24,
    }),
  },
);

/** Numbers as text, the way they arrive in a query: huge, negative, hexadecimal, fractional. */
export const hostileNumber = fc.constantFrom(
  '1e309',
  '-1e309',
  'Infinity',
  '-Infinity',
  'NaN',
  '0x10',
  '0b1',
  '-1',
  '-0',
  '0',
  '1.5',
  '1e2',
  ' 1',
  '1 ',
  '',
  '9007199254740993',
  '99999999999999999999999999999',
  '2147483648',
  '-2147483649',
);

/** Timestamps that parse to nothing, to something else, or to the ends of the Date range. */
export const hostileDate = fc.constantFrom(
  '2024-02-30T00:00:00Z',
  '2023-02-29T00:00:00Z',
  '2024-13-01T00:00:00Z',
  '2024-00-10T00:00:00Z',
  '2024-01-01T24:00:00Z',
  '2024-01-01T25:61:61Z',
  '2024-01-01T23:59:60Z',
  '2024-01-01T00:00:00+99:99',
  '2024-01-01T00:00:00-23:59',
  '0000-01-01T00:00:00Z',
  '9999-12-31T23:59:59.999999999Z',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
  '-271821-04-20T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '2024-01-01',
  '2024-01-01T00:00:00',
  '1e309',
  'now',
  '',
);

export const validDate = fc
  .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());

export const uuidish = fc.oneof(
  { weight: 3, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.uuid().map((id) => id.toUpperCase()) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'not-a-uuid',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '{00000000-0000-0000-0000-000000000000}',
    ),
  },
  { weight: 1, arbitrary: fc.tuple(fc.uuid(), hostileText).map(([id, text]) => id + text) },
);

export const iriish = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'http://example.com/activities/a',
      'https://example.com/x?y=1#z',
      'urn:uuid:0',
      'http://adlnet.gov/expapi/verbs/completed',
    ),
  },
  { weight: 1, arbitrary: fc.webUrl() },
  { weight: 1, arbitrary: hostileText.map((text) => `http://example.com/${text}`) },
  { weight: 1, arbitrary: hostileText },
);

// ---------------------------------------------------------------------------------------------
// Hostile JSON

/**
 * Raw JSON number text (`1e309` parses to Infinity, long digit strings lose precision), spliced
 * into serialised values: a value holds the marker string, `toJson` replaces it.
 */
const NUMBER_MARK = '\u0001num:';
export const rawNumber = fc
  .constantFrom('1e309', '-1e309', '1e-400', '-0', '123456789012345678901234567890', '0.1e1', '1E+2', '-1.5')
  .map((text) => `${NUMBER_MARK}${text}`);

/** JSON.stringify, with the number markers replaced by their raw text. Lone surrogates stay as `\udXXX` escapes. */
export function toJson(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0001num:([^"]*)"/g, '$1');
}

/** Any JSON value, its strings from every code unit (lone surrogates, NUL), its keys hostile too. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { maxDepth: 4, depthIdentifier: 'json' },
    { weight: 2, arbitrary: hostileText },
    { weight: 1, arbitrary: rawNumber },
    { weight: 2, arbitrary: fc.jsonValue({ stringUnit: 'binary', maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false, 0, -1, 1.5, Number.MAX_SAFE_INTEGER, {}, []) },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 4, depthIdentifier: 'json' }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.oneof(hostileText, fc.constantFrom('__proto__', 'constructor', '$ref', 'a')), tie('value')), {
          maxLength: 4,
          depthIdentifier: 'json',
        })
        .map((entries) => Object.fromEntries(entries)),
    },
  ),
})).value;

/** Bodies that are not what the route parses: not JSON, invalid UTF-8, empty, 10,000 levels deep. */
export const hostileBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom<string | Buffer>(
    '',
    ' ',
    'not json',
    '{',
    '{"a":',
    '[1,]',
    '{"a":1}garbage',
    'null',
    '"\\u0000"',
    '"\\ud800"',
    '{"\\u0000":"\\udfff"}',
    '{"__proto__":{"polluted":1}}',
    '1e309',
    DEEP_ARRAY,
    DEEP_OBJECT,
    `{"a":${DEEP_ARRAY}}`,
    Buffer.from([0xff, 0xfe, 0x00, 0x7b]),
    Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
    Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xed, 0xa0, 0x80, 0xc0, 0x80, 0xff]), Buffer.from('"}')]),
    'a=1&a=2&b=%00&c=%ZZ',
  ),
  hostileJson.map(toJson),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
);

// ---------------------------------------------------------------------------------------------
// URLs: ASCII only, with hostile bytes percent-encoded

/** A lone surrogate's three bytes (WTF-8): what a client that does not check its strings sends. */
function wtf8(codeUnit: number): number[] {
  return [0xe0 | (codeUnit >> 12), 0x80 | ((codeUnit >> 6) & 0x3f), 0x80 | (codeUnit & 0x3f)];
}

/** Percent-encodes every byte but the unreserved ones; lone surrogates as their WTF-8 bytes. */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    if (/^[A-Za-z0-9\-._~]$/.test(char)) {
      out += char;
      continue;
    }
    const code = char.codePointAt(0)!;
    const bytes = code >= 0xd800 && code <= 0xdfff ? wtf8(code) : [...Buffer.from(char, 'utf8')];
    out += bytes.map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** Query text as sent, already encoded: malformed escapes, encoded NUL, overlong NUL, stray separators. */
export const rawQueryFragment = fc.constantFrom(
  '%00',
  '%',
  '%2',
  '%zz',
  '%E0%A4%A',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%C0%80',
  '%FF%FE',
  '%uD800',
  '%2500',
  '+',
  '%2B',
  '%26%3D',
  '[]',
  '%5B%5D',
  'a[b]=c',
);

// ---------------------------------------------------------------------------------------------
// Headers: values within what Node's HTTP parser accepts (tab, visible ASCII, space, obs-text)

/** Maps any string into a header value a socket could carry: other characters become `?`. */
export function headerSafe(text: string): string {
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

export const hostileHeader: fc.Arbitrary<string> = fc.oneof(
  hostileText.map(headerSafe),
  fc.constantFrom('', ' ', '\t', 'x'.repeat(8_000), '\u00ff\u00fe', '"', ',', ';', '=', '*', 'null', '%00', '\\"'),
);
