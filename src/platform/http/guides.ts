import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Marked, type TokenizerThis, type Tokens } from 'marked';
import { AppError } from './app-error.js';

/**
 * The project's guides (docs/*.md) rendered to HTML under /docs/guides/, for people following a
 * link from a response (the `Link` of the `Deprecation` header) or browsing from /docs/guides/.
 * The project's folder sits three levels above this module both in src/platform/http and
 * dist/platform/http; its README lists the guides in the order they build on each other.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOCS = `${ROOT}docs/`;
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
 * The server's address as the guides write it (the default of `npm start`), and the demo tenant's
 * sub-domain on it: as a URL, URL-encoded inside another (a redirect's query) or a bare host. Each
 * page is served with the addresses its reader reached the server at instead (servedAddresses).
 */
const WRITTEN_ADDRESS =
  /http(?::\/\/|%3A%2F%2F)(demo\.)?(?:127\.0\.0\.1|localhost)(?::|%3A)8080(?![0-9])|(?<![\w.-])(demo\.)?(?:127\.0\.0\.1|localhost):8080(?![0-9])/g;
/** The tenant the guides' examples use, whose sub-domain address they hold in `$LB_DEMO`. */
const GUIDES_TENANT = 'demo';
/** Addresses whose pages are kept: one server is reached at a few; more (Host headers made up by a client) only cost a render. */
const ADDRESSES_KEPT = 16;

/** A guide named in the text, `docs/oauth.md` or `` `docs/oauth.md` ``, with an optional `, "Section"` after it. */
const MENTION = /^(`?)(docs\/([a-z0-9-]+)\.md)\1(?:, "([^"\n]+)")?/;
/** A Markdown link to a guide followed by `, "Section"`: the link leads to that section. */
const LINK_THEN_SECTION = /\]\(((?:\.\/|(?:\.\.\/)?docs\/)?[a-z0-9-]+\.md)\), "([^"\n]+)"/g;
/** Where a mention may start: not inside a longer path or a word. */
const MENTION_START = /(?<![\w/.-])`?docs\/[a-z0-9-]+\.md/;

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/&(?:#\d+|#x[0-9a-f]+|[a-z]+);/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The addresses a reader's commands hold, as the guides' pages show them: `LB`, the server as the
 * request reached it (`publicBaseUrl`; a tenant's sub-domain stands for the server itself), and
 * `LB_DEMO`, the demo tenant's sub-domain of the base domain on the same scheme, port and path.
 */
function servedAddresses(publicBaseUrl: string, baseDomain: string): { server: string; demo: string } {
  let url: URL;
  try {
    url = new URL(publicBaseUrl);
  } catch {
    return { server: publicBaseUrl, demo: publicBaseUrl };
  }
  const path = url.pathname.replace(/\/+$/, '');
  const port = url.port ? `:${url.port}` : '';
  const hostname = url.hostname.replace(/\.$/, '');
  const tenantLabel = hostname.endsWith(`.${baseDomain}`) && !hostname.slice(0, -baseDomain.length - 1).includes('.');
  const server = `${url.protocol}//${tenantLabel ? baseDomain : url.hostname}${port}${path}`;
  return { server, demo: `${url.protocol}//${GUIDES_TENANT}.${baseDomain}${port}${path}` };
}

/** The guides README's "Documentation" list names (`docs/{name}.md`), in its order, with what each covers (Markdown). */
function readmeOrder(): { name: string; about: string }[] {
  let readme: string;
  try {
    readme = readFileSync(`${ROOT}README.md`, 'utf8');
  } catch {
    return []; // an installation without the README lists the guides alphabetically
  }
  const start = readme.indexOf('\n## Documentation\n');
  if (start < 0) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^- \[[^\]]+\]\(docs\/([a-z0-9-]+)\.md\):?\s*(.*)$/gm)].map((match) => ({
    name: match[1]!,
    about: match[2]!.trim(),
  }));
}

export interface GuidesOptions {
  /** `{tenant}.{baseDomain}` names a tenant: the demo tenant's address in the guides is on it. */
  baseDomain: string;
}

/** Serves GET /docs/guides/ (the index) and GET /docs/guides/{name} for every docs/{name}.md. */
export function registerGuides(app: FastifyInstance, { baseDomain }: GuidesOptions): void {
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
  const rendered = new Map<string, { title: string; body: string; usesAddress: boolean }>();
  const byAddress = new Map<string, Map<string, Page>>();
  const cached = (address: string, name: string, make: () => Page): Page => {
    let pages = byAddress.get(address);
    if (!pages) {
      if (byAddress.size >= ADDRESSES_KEPT) byAddress.delete(byAddress.keys().next().value!);
      pages = new Map();
      byAddress.set(address, pages);
    }
    let found = pages.get(name);
    if (!found) {
      found = make();
      pages.set(name, found);
    }
    return found;
  };
  const guide = (name: string) => {
    let found = rendered.get(name);
    if (!found) {
      const source = readFileSync(`${DOCS}${name}.md`, 'utf8').replace(
        LINK_THEN_SECTION,
        (_all, href: string, section: string) => `](${href}#${slug(section)}), "${section}"`,
      );
      found = { title: titleOf(source) ?? name, body: markdown.parse(source, { async: false }), usesAddress: source.includes('$LB') };
      rendered.set(name, found);
    }
    return found;
  };
  const page = (name: string, address: string): Page =>
    cached(address, name, () => {
      const addresses = servedAddresses(address, baseDomain);
      const { title, body, usesAddress } = guide(name);
      const nav = `<nav><a href="${GUIDES_PATH}">All guides</a></nav>\n`;
      const settings = usesAddress
        ? `<p>The examples read the server's address from the shell variable <code>LB</code>, and the ${GUIDES_TENANT} tenant's own address (its sub-domain) from <code>LB_DEMO</code>; set them once in the terminal you run them in (the README's "Start" sets them with the demo credentials). For this server:</p>\n${addressBlock(addresses)}\n`
        : '';
      return asPage(title, `${nav}${settings}${withAddresses(body, addresses)}`);
    });
  const index = (address: string): Page =>
    cached(address, '', () => {
      const listed = readmeOrder().filter((entry) => names.has(entry.name));
      const rest = [...names].filter((name) => !listed.some((entry) => entry.name === name)).sort();
      const item = (name: string, about?: string) =>
        `<li><a href="${GUIDES_PATH}${name}">${escapeHtml(guide(name).title)}</a>${about ? `: ${markdown.parseInline(about, { async: false })}` : ''}</li>`;
      const path =
        listed.length > 0
          ? `<p>In this order the guides are one path through the API against <code>npm start</code>'s demo tenant: each guide's examples build on what the ones before made (the same people, activities, credentials and tokens), so run them from the first, in one terminal, with the server running. Before the first, set the server's address and the values the server printed once when it created the demo tenant (the README's "Start"):</p>\n${addressBlock(servedAddresses(address, baseDomain), true)}\n<ol>\n${listed.map((entry) => item(entry.name, entry.about)).join('\n')}\n</ol>\n`
          : '';
      const others =
        rest.length > 0
          ? `${listed.length > 0 ? '<h2>Also here</h2>\n' : ''}<ul>\n${rest.map((name) => item(name)).join('\n')}\n</ul>\n`
          : '';
      return asPage(
        'learnbase guides',
        `<h1>learnbase guides</h1>\n${withAddresses(path + others, servedAddresses(address, baseDomain))}<p><a href="/docs">The API reference</a></p>`,
      );
    });

  const hidden = { config: { public: true }, schema: { hide: true } };
  app.get(GUIDES_PATH, hidden, async (request, reply) => send(reply, request.headers['if-none-match'], index(request.publicBaseUrl)));
  app.get<{ Params: { name: string } }>(`${GUIDES_PATH}:name`, hidden, async (request, reply) => {
    // Only the names read from the folder are served: whatever else the path holds is unknown.
    const name = request.params.name;
    if (!names.has(name)) throw new AppError('docs.not_found', 404, `No guide named "${name}"; the guides are listed at ${GUIDES_PATH}.`);
    return send(reply, request.headers['if-none-match'], page(name, request.publicBaseUrl));
  });
}

/** `html` with the addresses the guides write replaced by those of this server (WRITTEN_ADDRESS). */
function withAddresses(html: string, addresses: { server: string; demo: string }): string {
  // A function, not a replacement string: the address comes from the request, and "$&" in it is text.
  return html.replace(WRITTEN_ADDRESS, (written, demoUrl: string | undefined, demoHost: string | undefined) => {
    const address = demoUrl || demoHost ? addresses.demo : addresses.server;
    if (!written.startsWith('http')) return escapeHtml(address.replace(/^[a-z]+:\/\/([^/]*).*$/, '$1'));
    return escapeHtml(written.includes('%3A') ? encodeURIComponent(address) : address);
  });
}

/** The reader's lines setting LB and LB_DEMO (and, before the first guide, the banner's values). */
function addressBlock(addresses: { server: string; demo: string }, banner = false): string {
  const quoted = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
  const lines = [`LB=${quoted(addresses.server)}`];
  if (banner) {
    lines.push(
      `KEY='lb_…'  SECRET='…'                  # the banner's "key" and "secret"`,
      `CLIENT_ID='lbc_…'  CLIENT_SECRET='…'    # "clientId" and "clientSecret"`,
      `REDIRECT_URI='…'                        # "redirect URI"`,
    );
  }
  lines.push(`LB_DEMO=${quoted(addresses.demo)}`);
  return `<pre><code>${escapeHtml(lines.join('\n'))}</code></pre>`;
}

/** The guide page a Markdown link names (`oauth.md`, `docs/oauth.md`, either with `./` before it or `#revoke` after it), if it is one. */
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
