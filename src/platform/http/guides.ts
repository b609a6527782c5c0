import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Marked, type TokenizerThis, type Tokens } from 'marked';
import { AppError } from './app-error.js';

/**
 * The project's guides (docs/*.md) rendered to HTML under /docs/guides/, for people following a
 * link from a response (the `Link` of the `Deprecation` header) or browsing from /docs/guides/.
 * The folder sits three levels above this module both in src/platform/http and dist/platform/http.
 */
const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
export const GUIDES_PATH = '/docs/guides/';

/** Plain pages: no script runs, styles only inline, nothing loaded from elsewhere. */
export const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'public, max-age=300',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
pre,code{font:14px ui-monospace,monospace;background:#f4f4f4}pre{padding:.75rem;overflow-x:auto}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;vertical-align:top}nav{margin-bottom:1rem}`;

export interface Page {
  html: string;
  etag: string;
}

/**
 * The server's address as the guides write it (the default of `npm start`): each page is served
 * with the address its reader reached the server at instead (`request.publicBaseUrl`).
 */
const WRITTEN_ADDRESS = /http:\/\/(?:127\.0\.0\.1|localhost):8080(?![0-9])/g;
/** Addresses whose pages are kept: one server is reached at a few; more (Host headers made up by a client) only cost a render. */
const ADDRESSES_KEPT = 16;

/** A guide named in the text, `docs/oauth.md` or `` `docs/oauth.md` ``, with an optional `, "Section"` after it. */
const MENTION = /^(`?)(docs\/([a-z0-9-]+)\.md)\1(?:, "([^"\n]+)")?/;
/** A Markdown link to a guide followed by `, "Section"`: the link leads to that section. */
const LINK_THEN_SECTION = /\]\(((?:\.\/|(?:\.\.\/)?docs\/)?[a-z0-9-]+\.md)\), "([^"\n]+)"/g;
/** Where a mention may start: not inside a path or a word (`bench/docs/x.md`). */
const MENTION_START = /(?<![\w/.-])`?docs\/[a-z0-9-]+\.md/;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Serves GET /docs/guides/ (the index) and GET /docs/guides/{name} for every docs/{name}.md. */
export function registerGuides(app: FastifyInstance): void {
  const names = new Set(
    readdirSync(DOCS)
      .filter((file) => /^[a-z0-9-]+\.md$/.test(file))
      .map((file) => file.slice(0, -3)),
  );
  const markdown = new Marked({
    // Mentions of another guide in the text become links, as Markdown links to it do (guideLink).
    // Inline only: code blocks keep them as they are, and the text of a link is left alone.
    extensions: [
      {
        name: 'guideMention',
        level: 'inline',
        start: (source: string) => {
          const at = source.search(MENTION_START);
          return at < 0 ? undefined : at;
        },
        tokenizer(this: TokenizerThis, source: string): Tokens.Link | undefined {
          const match = MENTION.exec(source);
          if (!match || this.lexer.state.inLink || !names.has(match[3]!)) return undefined;
          const [raw, tick, file, , section] = match;
          const named: Tokens.Codespan | Tokens.Text = tick
            ? { type: 'codespan', raw: `\`${file}\``, text: file! }
            : { type: 'text', raw: file!, text: file!, escaped: false };
          const rest = raw.slice(named.raw.length);
          return {
            type: 'link',
            raw,
            href: `${file}${section ? `#${slug(section)}` : ''}`,
            title: null,
            text: raw,
            tokens: rest ? [named, { type: 'text', raw: rest, text: rest, escaped: false }] : [named],
          };
        },
      },
    ],
    renderer: {
      // Links between the guides lead to their pages here; other relative links (README.md, the
      // bench folder) point into the repository, which this server does not serve: kept as text.
      link({ href, title, tokens }: Tokens.Link) {
        const text = this.parser.parseInline(tokens);
        const target = guideLink(href, names) ?? (/^(https?:|mailto:|#)/.test(href) ? href : undefined);
        if (target === undefined) return text;
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ''}>${text}</a>`;
      },
      heading({ tokens, depth }: Tokens.Heading) {
        const text = this.parser.parseInline(tokens);
        return `<h${depth} id="${escapeHtml(slug(text))}">${text}</h${depth}>\n`;
      },
    },
  });
  // Rendered once with the address as written; served per address (byAddress), the oldest address dropped first.
  const rendered = new Map<string, { title: string; body: string }>();
  const byAddress = new Map<string, Map<string, Page>>();
  const page = (name: string, address: string): Page => {
    let pages = byAddress.get(address);
    if (!pages) {
      if (byAddress.size >= ADDRESSES_KEPT) byAddress.delete(byAddress.keys().next().value!);
      pages = new Map();
      byAddress.set(address, pages);
    }
    let found = pages.get(name);
    if (!found) {
      let guide = rendered.get(name);
      if (!guide) {
        const source = readFileSync(`${DOCS}${name}.md`, 'utf8').replace(
          LINK_THEN_SECTION,
          (_all, href: string, section: string) => `](${href}#${slug(section)}), "${section}"`,
        );
        guide = { title: titleOf(source) ?? name, body: markdown.parse(source, { async: false }) };
        rendered.set(name, guide);
      }
      // A function, not a replacement string: the address comes from the request, and "$&" in it is text.
      const at = escapeHtml(address);
      found = asPage(guide.title, `<nav><a href="${GUIDES_PATH}">All guides</a></nav>\n${guide.body.replace(WRITTEN_ADDRESS, () => at)}`);
      pages.set(name, found);
    }
    return found;
  };
  const index = () => {
    const items = [...names]
      .sort()
      .map(
        (name) => `<li><a href="${GUIDES_PATH}${name}">${escapeHtml(titleOf(readFileSync(`${DOCS}${name}.md`, 'utf8')) ?? name)}</a></li>`,
      );
    return asPage(
      'learnbase guides',
      `<h1>learnbase guides</h1>\n<ul>\n${items.join('\n')}\n</ul>\n<p><a href="/docs">The API reference</a></p>`,
    );
  };

  const hidden = { config: { public: true }, schema: { hide: true } };
  app.get(GUIDES_PATH, hidden, async (request, reply) => send(reply, request.headers['if-none-match'], index()));
  app.get<{ Params: { name: string } }>(`${GUIDES_PATH}:name`, hidden, async (request, reply) => {
    // Only the names read from the folder are served: whatever else the path holds is unknown.
    const name = request.params.name;
    if (!names.has(name)) throw new AppError('docs.not_found', 404, `No guide named "${name}"; the guides are listed at ${GUIDES_PATH}.`);
    return send(reply, request.headers['if-none-match'], page(name, request.publicBaseUrl));
  });
}

/** The guide page a Markdown link names (`oauth.md`, `./oauth.md#revoke`, `docs/oauth.md`), if it is one. */
function guideLink(href: string, names: Set<string>): string | undefined {
  const match = /^(?:\.\/|(?:\.\.\/)?docs\/)?([a-z0-9-]+)\.md(#[^\s]*)?$/.exec(href);
  return match && names.has(match[1]!) ? `${GUIDES_PATH}${match[1]}${match[2] ?? ''}` : undefined;
}

const titleOf = (source: string) => /^# (.+)$/m.exec(source)?.[1]?.trim();

/** A whole page around `body` (HTML), in the guides' plain style, with an ETag of its bytes. */
export function asPage(title: string, body: string): Page {
  const html = `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>\n${body}\n</body></html>\n`;
  return { html, etag: `"${createHash('sha256').update(html).digest('base64url').slice(0, 27)}"` };
}

function send(reply: FastifyReply, ifNoneMatch: string | undefined, page: Page) {
  reply.headers(PAGE_HEADERS).header('ETag', page.etag);
  if (ifNoneMatch === page.etag) return reply.status(304).send();
  return reply.send(page.html);
}
