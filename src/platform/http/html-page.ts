import { createHash } from 'node:crypto';

/**
 * The server-rendered pages for browsers (the sign-in form, the launch and error pages): plain HTML
 * with one inline style sheet allowed by its hash: no script, no third-party asset, nothing a
 * Content-Security-Policy of `default-src 'none'` has to open up.
 */

const STYLE = `
:root { color-scheme: light dark; --accent: #1d4ed8; --error: #b91c1c; --muted: #4b5563; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: Canvas; color: CanvasText; }
main { max-width: 28rem; margin: 3rem auto; padding: 2rem; border: 1px solid #d1d5db; border-radius: 0.75rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; line-height: 1.3; }
p { margin: 0 0 1rem; }
.muted { color: var(--muted); font-size: 0.9rem; }
label { display: block; font-weight: 600; margin: 1rem 0 0.25rem; }
input[type=email], input[type=password] { width: 100%; padding: 0.6rem 0.7rem; font: inherit; border: 1px solid #6b7280; border-radius: 0.4rem; background: Field; color: FieldText; }
input[aria-invalid=true] { border-color: var(--error); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; flex-wrap: wrap; }
button { font: inherit; padding: 0.6rem 1.1rem; border-radius: 0.4rem; border: 1px solid var(--accent); cursor: pointer; }
button.primary { background: var(--accent); color: #fff; }
button.secondary { background: transparent; color: inherit; border-color: #6b7280; }
.alert { border: 1px solid var(--error); border-left-width: 0.4rem; padding: 0.6rem 0.8rem; margin: 0 0 1rem; border-radius: 0.4rem; }
pre, code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.85rem; }
pre { white-space: pre-wrap; word-break: break-all; padding: 0.75rem; border: 1px solid #d1d5db; border-radius: 0.4rem; }
dt { font-weight: 600; } dd { margin: 0 0 0.75rem; word-break: break-all; }
`;

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Headers for every page: never cached, never framed, strict CSP. No `form-action` directive:
 * browsers apply it to the redirect that follows the form POST and would block the client.
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'Content-Security-Policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; frame-ancestors 'none'`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
});

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and double- or single-quoted attribute values. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);

export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · learnbase</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** A request that cannot go back to the client: it names what is wrong and stays on this server. */
export function errorPage(title: string, message: string): string {
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<div class="alert" role="alert">${escapeHtml(message)}</div>\n<p class="muted">Return to the application you came from and start again. If this keeps happening, tell its operator.</p>`,
  );
}
