// Reads the guides as the walk runs them: the order of README's "Documentation" list, and in each
// guide its ```sh blocks, the output block that follows each, and the `<!-- walk: … -->` markers.
// docs/operations.md, "The guides are tested", is the convention this module reads.

export type OutputLang = 'json' | 'http' | 'text';

/** The block shown right after a command block: what the commands print. */
export interface ExpectedOutput {
  lang: OutputLang;
  text: string;
  line: number;
}

interface At {
  /** The guide's path (`docs/oauth.md`, `README.md`) and the line of the step in it. */
  guide: string;
  line: number;
}

export type Step =
  /** A ```sh block the walk runs. */
  | (At & { kind: 'run'; script: string; expected?: ExpectedOutput })
  /** A ```sh block the walk does not run, and why. */
  | (At & { kind: 'skip'; script: string; reason: string })
  /** The reader's block of values copied from the banner: the walk sets them from its banner. */
  | (At & { kind: 'banner'; names: string[] })
  /** Values copied from the last answer: `NAME = .json.path` or `NAME = Header?parameter`. */
  | (At & { kind: 'set'; assignments: { name: string; source: string }[] })
  /** The browser's OAuth sign-in, done over HTTP: the code of the redirect goes into `name`. */
  | (At & { kind: 'sign-in'; at: 'printed' | 'banner'; name: string })
  /**
   * The reader stops the server and starts it again in its terminal: `before` (the block's lines
   * before its last) runs in the reader's terminal, then the server starts with `env`, the
   * assignments before the last line's `npm start`.
   */
  | (At & { kind: 'restart'; script: string; before: string; env: Record<string, string> });

export interface Guide {
  path: string;
  steps: Step[];
}

const OUTPUT_LANGS = new Set<string>(['json', 'http', 'text']);
const NAME = /^[A-Z_][A-Z0-9_]*$/;
/** The last line of a block the server is restarted by: `NAME=value … npm start`. */
const START_LINE = /^((?:[A-Z_][A-Z0-9_]*=[^\s'"$`\\]+\s+)*)npm start$/;

/** The docs/*.md guides README's "Documentation" list names, in its order. */
export function guideOrder(readme: string): string[] {
  const { text } = section(readme, 'Documentation', 'README.md');
  return [...text.matchAll(/^- \[[^\]]+\]\((docs\/[a-z0-9-]+\.md)\)/gm)].map((match) => match[1]!);
}

/** The text of the `## heading` section and the line it starts on. */
export function section(markdown: string, heading: string, path: string): { text: string; firstLine: number } {
  const lines = markdown.split('\n');
  const start = lines.indexOf(`## ${heading}`);
  if (start < 0) throw new Error(`${path} has no "## ${heading}" section`);
  const end = lines.findIndex((line, index) => index > start && /^#{1,2} /.test(line));
  return { text: lines.slice(start, end < 0 ? undefined : end).join('\n'), firstLine: start + 1 };
}

type Element =
  | { type: 'fence'; lang: string; text: string; line: number }
  | { type: 'marker'; text: string; line: number }
  | { type: 'other' };

/** Fenced blocks, walk markers and everything else (blank lines are dropped: they separate nothing). */
function elements(markdown: string, firstLine: number): Element[] {
  const lines = markdown.split('\n');
  const found: Element[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const fence = /^(\s*)(`{3,})\s*([\w-]*)\s*$/.exec(line);
    if (fence) {
      const [, indent, ticks, lang] = fence;
      const body: string[] = [];
      let end = index + 1;
      while (end < lines.length && !new RegExp(`^\\s*${ticks}\\s*$`).test(lines[end]!)) body.push(lines[end++]!);
      found.push({
        type: 'fence',
        lang: lang!,
        text: body.map((text) => (text.startsWith(indent!) ? text.slice(indent!.length) : text.trimStart())).join('\n'),
        line: firstLine + index,
      });
      index = end;
      continue;
    }
    const marker = /^<!-- walk: (.*) -->$/.exec(line.trim());
    if (marker) found.push({ type: 'marker', text: marker[1]!.trim(), line: firstLine + index });
    else if (line.trim() !== '') found.push({ type: 'other' });
  }
  return found;
}

/** The names a block of `NAME=value` lines assigns (comments after `#` left out). */
export function assignedNames(script: string): string[] {
  return script
    .split('\n')
    .map((line) => line.replace(/(^|\s)#.*$/, ''))
    .flatMap((line) => [...line.matchAll(/(?:^|\s)([A-Z_][A-Z0-9_]*)=/g)].map((match) => match[1]!));
}

/** The steps of one guide (or of one section of it, starting at `firstLine`). */
export function parseGuide(path: string, markdown: string, firstLine = 1): Guide {
  const found = elements(markdown, firstLine);
  const steps: Step[] = [];
  const fail = (line: number, message: string): never => {
    throw new Error(`${path}:${line}: ${message}`);
  };
  /** The ```sh block right after element `index`, if there is one. */
  const shAfter = (index: number) => {
    const next = found[index + 1];
    return next?.type === 'fence' && next.lang === 'sh' ? next : undefined;
  };
  const sameNames = (line: number, block: { text: string; line: number }, names: string[]) => {
    const assigned = assignedNames(block.text);
    if ([...assigned].sort().join() !== [...names].sort().join()) {
      fail(line, `the marker names ${names.join(', ')} but the block at line ${block.line} sets ${assigned.join(', ') || 'nothing'}`);
    }
  };

  for (let index = 0; index < found.length; index++) {
    const element = found[index]!;
    if (element.type === 'other') continue;
    if (element.type === 'fence') {
      if (element.lang !== 'sh') continue;
      const next = found[index + 1];
      const expected = next?.type === 'fence' && OUTPUT_LANGS.has(next.lang) ? next : undefined;
      steps.push({
        kind: 'run',
        guide: path,
        line: element.line,
        script: element.text,
        ...(expected && { expected: { lang: expected.lang as OutputLang, text: expected.text, line: expected.line } }),
      });
      if (expected) index++;
      continue;
    }

    const { text, line } = element;
    const block = shAfter(index);
    let skip: RegExpExecArray | null;
    let signIn: RegExpExecArray | null;
    if ((skip = /^skip: (.+)$/.exec(text))) {
      if (!block) fail(line, 'a skip marker must stand right before the ```sh block it skips');
      steps.push({ kind: 'skip', guide: path, line: block!.line, script: block!.text, reason: skip[1]! });
      index++;
      const next = found[index + 1];
      if (next?.type === 'fence' && OUTPUT_LANGS.has(next.lang)) index++;
    } else if (text === 'from the banner') {
      if (!block) fail(line, 'a "from the banner" marker must stand right before the reader\'s ```sh block of values');
      steps.push({ kind: 'banner', guide: path, line: block!.line, names: assignedNames(block!.text) });
      index++;
    } else if (text === 'restart the server') {
      const lines = block?.text.trimEnd().split('\n') ?? [];
      const start = START_LINE.exec(lines.at(-1)?.trim() ?? '');
      if (!block || !start) {
        fail(line, 'a "restart the server" marker must stand right before a ```sh block whose last line is `[NAME=value …] npm start`');
      }
      const env = Object.fromEntries(
        start![1]!
          .trim()
          .split(/\s+/)
          .filter((assignment) => assignment !== '')
          .map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]),
      );
      steps.push({ kind: 'restart', guide: path, line: block!.line, script: block!.text, before: lines.slice(0, -1).join('\n'), env });
      index++;
    } else if ((signIn = /^browser sign-in( at the banner's address)? -> ([A-Z_][A-Z0-9_]*)$/.exec(text))) {
      steps.push({ kind: 'sign-in', guide: path, line, at: signIn[1] ? 'banner' : 'printed', name: signIn[2]! });
      if (block) {
        sameNames(line, block, [signIn[2]!]);
        index++;
      }
    } else if (/^[A-Z_][A-Z0-9_]* = /.test(text)) {
      const assignments = text.split(/,\s*/).map((part) => {
        const [name, source] = part.split(/\s*=\s*/);
        if (!name || !NAME.test(name) || !source) fail(line, `"${part}" is not NAME = .json.path or NAME = Header?parameter`);
        return { name: name!, source: source! };
      });
      steps.push({ kind: 'set', guide: path, line, assignments });
      if (block) {
        sameNames(
          line,
          block,
          assignments.map((assignment) => assignment.name),
        );
        index++;
      }
    } else {
      fail(line, `unknown walk marker "${text}" (docs/operations.md, "The guides are tested", lists them)`);
    }
  }
  return { path, steps };
}
