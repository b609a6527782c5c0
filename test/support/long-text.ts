import { randomInt } from 'node:crypto';

/**
 * Random characters of one to four bytes of UTF-8 each: 1 ASCII (no space), 2 Latin letters with
 * marks, 3 CJK ideographs, 4 pictographs. Random, so PostgreSQL cannot compress an index entry
 * made of them: a value at a limit is tested at its true size.
 */
const RANGES: ReadonlyArray<[number, number]> = [
  [0x21, 0x7e],
  [0xc0, 0x24f],
  [0x4e00, 0x9fff],
  [0x1f300, 0x1f5ff],
];

/**
 * `prefix` followed by random characters, exactly `bytes` bytes of UTF-8 in all; no character of
 * `exclude` (white space, `@` and `|` by default: IRIs, e-mail addresses and actorIds stay valid).
 */
export function randomText(bytes: number, prefix = '', exclude = /[\s@|%]/): string {
  let text = prefix;
  let left = bytes - Buffer.byteLength(prefix, 'utf8');
  if (left < 0) throw new Error(`The prefix is longer than ${bytes} bytes.`);
  while (left > 0) {
    const width = 1 + randomInt(Math.min(4, left));
    const [low, high] = RANGES[width - 1];
    const character = String.fromCodePoint(low + randomInt(high - low + 1));
    if (exclude.test(character)) continue;
    text += character;
    left -= width;
  }
  return text;
}

export const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');
