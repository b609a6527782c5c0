// Compares what a command printed with the output block a guide shows after it, the way
// docs/operations.md, "The guides are tested", says: JSON by structure, `http` by status line, the
// headers shown and the body, `text` line by line after normalising white space. `…` stands for
// what varies; a failed comparison comes with a line diff (- the page, + the server).
import { isDeepStrictEqual } from 'node:util';
import type { OutputLang } from './guide-steps.js';

/** The varying-value marker: a whole value, an array's further elements, an object's further properties, or a run of characters. */
export const ANY = '…';

export interface Comparison {
  ok: boolean;
  /** Line diff, `-` for the page's lines, `+` for the server's, two-space indent for lines that agree. */
  diff: string;
}

export function compareOutput(lang: OutputLang, expected: string, actual: string): Comparison {
  if (lang === 'json') return compareJson(parseExpectedJson(expected), actual);
  if (lang === 'text') return compareText(expected, actual);
  return compareHttp(expected, actual);
}

function parseExpectedJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`the page's json block is not JSON (${(error as Error).message}):\n${text}`);
  }
}

function compareJson(expected: unknown, actualText: string): Comparison {
  let actual: unknown;
  try {
    actual = JSON.parse(actualText);
  } catch {
    return { ok: false, diff: lineDiff(pretty(expected).split('\n'), actualText.split('\n')) };
  }
  const reconciled = reconcile(expected, actual);
  if (isDeepStrictEqual(reconciled, actual)) return { ok: true, diff: '' };
  return { ok: false, diff: lineDiff(pretty(reconciled).split('\n'), pretty(actual).split('\n')) };
}

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `…` inside a string matches any run of characters; everything else literally. */
function wildcard(pattern: string, any = '[^]*'): RegExp {
  return new RegExp(
    `^${pattern
      .split(ANY)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join(any)}$`,
  );
}

/**
 * The page's value with every place its markers match filled in from the server's, so that the
 * two are deep-equal exactly when the page is right, and a diff of the two shows only what differs.
 */
function reconcile(expected: unknown, actual: unknown): unknown {
  if (expected === ANY) return actual;
  if (typeof expected === 'string') return typeof actual === 'string' && wildcard(expected).test(actual) ? actual : expected;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return expected;
    const open = expected.at(-1) === ANY;
    const shown = open ? expected.slice(0, -1) : expected;
    const merged = shown.map((item, index) => (index < actual.length ? reconcile(item, actual[index]) : item));
    return open ? [...merged, ...actual.slice(shown.length)] : merged;
  }
  if (isObject(expected)) {
    if (!isObject(actual)) return expected;
    const open = ANY in expected;
    const merged: Record<string, unknown> = {};
    for (const key of Object.keys(actual)) {
      if (key !== ANY && key in expected) merged[key] = reconcile(expected[key], actual[key]);
      else if (open) merged[key] = actual[key];
    }
    for (const key of Object.keys(expected)) if (key !== ANY && !(key in actual)) merged[key] = expected[key];
    return merged;
  }
  return expected;
}

/** Lines trimmed, inner white space collapsed, blank lines dropped. */
const normalised = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim().replace(/\s+/g, ' '))
    .filter((line) => line !== '');

/** A line `…` stands for any number of lines; `…` inside a line for any characters. */
function compareText(expected: string, actual: string): Comparison {
  const want = normalised(expected);
  const got = normalised(actual);
  const pattern = want.map((line) => (line === ANY ? '(?:[^\\n]*\\n)*?' : `${wildcard(line, '[^\\n]*').source.slice(1, -1)}\\n`)).join('');
  if (new RegExp(`^${pattern}$`).test(got.map((line) => `${line}\n`).join(''))) return { ok: true, diff: '' };
  return { ok: false, diff: lineDiff(want, got, (page, server) => page === ANY || wildcard(page).test(server)) };
}

export interface HttpAnswer {
  status: string;
  headers: [string, string][];
  body: string;
}

/** `curl -i` output: the status line, the headers, a blank line, the body (the last of several answers, such as a 100 Continue). */
export function parseHttp(text: string): HttpAnswer | undefined {
  let rest = text.replace(/\r\n/g, '\n');
  let answer: HttpAnswer | undefined;
  while (/^HTTP\/[\d.]+ \d{3}/.test(rest)) {
    const end = rest.indexOf('\n\n');
    const head = (end < 0 ? rest : rest.slice(0, end)).split('\n');
    rest = end < 0 ? '' : rest.slice(end + 2);
    answer = {
      status: head[0]!.trim(),
      headers: head.slice(1).map((line) => {
        const colon = line.indexOf(':');
        return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()] as [string, string];
      }),
      body: rest,
    };
  }
  return answer;
}

function compareHttp(expectedText: string, actualText: string): Comparison {
  const expected = parseHttp(expectedText.trimStart());
  if (!expected) throw new Error(`the page's http block does not start with a status line:\n${expectedText}`);
  const actual = parseHttp(actualText);
  if (!actual) return { ok: false, diff: lineDiff(expectedText.split('\n'), actualText.split('\n')) };

  const page: string[] = [];
  const server: string[] = [];
  const statusOk = wildcard(expected.status).test(actual.status);
  page.push(statusOk ? actual.status : expected.status);
  server.push(actual.status);
  let ok = statusOk;
  for (const [name, value] of expected.headers) {
    const found = actual.headers.filter(([actualName]) => actualName === name);
    const match = found.find(([, actualValue]) => wildcard(value).test(actualValue));
    ok &&= match !== undefined;
    page.push(`${name}: ${match ? match[1] : value}`);
    server.push(...(match ? [`${name}: ${match[1]}`] : found.map(([, actualValue]) => `${name}: ${actualValue}`)));
  }
  page.push('');
  server.push('');

  const body = expected.body.trim();
  if (body === '') {
    ok &&= actual.body.trim() === '';
    server.push(...(actual.body.trim() === '' ? [] : actual.body.split('\n')));
  } else {
    let bodyComparison: Comparison;
    let isJson = true;
    try {
      JSON.parse(body);
    } catch {
      isJson = false;
    }
    if (isJson) {
      bodyComparison = compareJson(JSON.parse(body), actual.body);
      let actualBody: unknown;
      try {
        actualBody = JSON.parse(actual.body);
      } catch {
        actualBody = undefined;
      }
      page.push(...pretty(actualBody === undefined ? JSON.parse(body) : reconcile(JSON.parse(body), actualBody)).split('\n'));
      server.push(...(actualBody === undefined ? actual.body.split('\n') : pretty(actualBody).split('\n')));
    } else {
      bodyComparison = compareText(body, actual.body);
      page.push(...normalised(body));
      server.push(...normalised(actual.body));
    }
    ok &&= bodyComparison.ok;
  }
  return ok ? { ok, diff: '' } : { ok, diff: lineDiff(page, server) };
}

/** Lines that agree kept around each difference; longer runs of agreement are folded. */
const CONTEXT = 3;

/** A line diff by longest common subsequence (the outputs are a few thousand lines at most). */
export function lineDiff(page: string[], server: string[], same: (page: string, server: string) => boolean = (a, b) => a === b): string {
  const rows = page.length;
  const columns = server.length;
  const common: number[][] = Array.from({ length: rows + 1 }, () => new Array<number>(columns + 1).fill(0));
  for (let i = rows - 1; i >= 0; i--) {
    for (let j = columns - 1; j >= 0; j--) {
      common[i]![j] = same(page[i]!, server[j]!) ? common[i + 1]![j + 1]! + 1 : Math.max(common[i + 1]![j]!, common[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < rows || j < columns) {
    if (i < rows && j < columns && same(page[i]!, server[j]!)) {
      out.push(`  ${server[j]}`);
      i++;
      j++;
    } else if (i < rows && (j === columns || common[i + 1]![j]! >= common[i]![j + 1]!)) {
      out.push(`- ${page[i++]}`);
    } else {
      out.push(`+ ${server[j++]}`);
    }
  }
  const changed = out.map((line) => !line.startsWith('  '));
  const near = (index: number) => changed.slice(Math.max(0, index - CONTEXT), index + CONTEXT + 1).some(Boolean);
  const folded: string[] = [];
  let skipped = 0;
  out.forEach((line, index) => {
    if (near(index)) {
      if (skipped > 0) folded.push(`  (${skipped} lines agree)`);
      skipped = 0;
      folded.push(line);
    } else skipped++;
  });
  if (skipped > 0) folded.push(`  (${skipped} lines agree)`);
  return folded.join('\n');
}
