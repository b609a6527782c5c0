import { createHash } from 'node:crypto';

/**
 * The server-rendered pages of the browser step: the sign-in form, the error page, and the demo
 * client's callback page. Plain HTML with one inline style sheet allowed by its hash: no script,
 * no third-party asset, nothing a Content-Security-Policy of `default-src 'none'` has to open up.
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

function layout(title: string, body: string): string {
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

export interface SignInPageModel {
  clientName: string;
  tenantName: string;
  requestId: string;
  clientId: string;
  csrfToken: string;
  /** Kept across a failed attempt, so only the password is typed again. */
  email?: string;
  /** Shown in an alert region that screen readers announce. */
  error?: string;
}

export function signInPage(model: SignInPageModel): string {
  const client = escapeHtml(model.clientName);
  const tenant = escapeHtml(model.tenantName);
  const invalid = model.error ? ' aria-invalid="true" aria-describedby="sign-in-error"' : '';
  const alert = model.error ? `<div class="alert" role="alert" id="sign-in-error">${escapeHtml(model.error)}</div>\n` : '';
  // Focus goes where the person types next: the e-mail field, or the password after a failure.
  const focusEmail = model.email ? '' : ' autofocus';
  const focusPassword = model.email ? ' autofocus' : '';
  return layout(
    `Authorise ${model.clientName}`,
    `<h1>Authorise ${client}</h1>
<p><strong>${client}</strong> asks to use learnbase on behalf of the organisation <strong>${tenant}</strong>.</p>
<p class="muted">Sign in with your administrator account of ${tenant} to allow it. You can cancel and return to ${client} without signing in.</p>
${alert}<form method="post" action="/auth/oauth/authorize">
<input type="hidden" name="request_id" value="${escapeHtml(model.requestId)}">
<input type="hidden" name="client_id" value="${escapeHtml(model.clientId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(model.csrfToken)}">
<label for="email">E-mail address</label>
<input type="email" id="email" name="email" autocomplete="username" required spellcheck="false" autocapitalize="none" value="${escapeHtml(model.email ?? '')}"${invalid}${focusEmail}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${invalid}${focusPassword}>
<div class="actions">
<button type="submit" class="primary" name="action" value="authorize">Sign in and authorise</button>
<button type="submit" class="secondary" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>`,
  );
}

/** A request that cannot go back to the client: it names what is wrong and stays on this server. */
export function errorPage(title: string, message: string): string {
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<div class="alert" role="alert">${escapeHtml(message)}</div>\n<p class="muted">Return to the application you came from and start again. If this keeps happening, tell its operator.</p>`,
  );
}

export interface DemoCallbackModel {
  origin: string;
  code?: string;
  state?: string;
  error?: string;
  errorDescription?: string;
}

/** Where the demo client's codes land: the code, and the curl line that exchanges it. */
export function demoCallbackPage(model: DemoCallbackModel): string {
  if (!model.code) {
    const what = model.error ? `The authorization ended with error "${model.error}".` : 'This page expects a code in its address.';
    return layout(
      'No code',
      `<h1>No code</h1>\n<div class="alert" role="alert">${escapeHtml(what)}${model.errorDescription ? ` ${escapeHtml(model.errorDescription)}` : ''}</div>`,
    );
  }
  const redirectUri = `${model.origin}/auth/demo/callback`;
  const body = JSON.stringify({
    grant_type: 'authorization_code',
    client_id: 'CLIENT_ID',
    client_secret: 'CLIENT_SECRET',
    redirect_uri: redirectUri,
    code: model.code,
  })
    .replace('"CLIENT_ID"', `"'"$CLIENT_ID"'"`)
    .replace('"CLIENT_SECRET"', `"'"$CLIENT_SECRET"'"`);
  const curl = `curl -s -X POST ${model.origin}/auth/oauth/token -H 'Content-Type: application/json' -d '${body}'`;
  return layout(
    'Authorization code',
    `<h1>Authorization code</h1>
<p>The demo client received this code. It is single-use and expires in 10 minutes.</p>
<dl>
<dt>code</dt><dd><code id="code">${escapeHtml(model.code)}</code></dd>
${model.state === undefined ? '' : `<dt>state</dt><dd><code id="state">${escapeHtml(model.state)}</code></dd>\n`}</dl>
<p>Exchange it for tokens, with <code>CLIENT_ID</code> and <code>CLIENT_SECRET</code> set to the demo client's values that the server printed when it started (add <code>"code_verifier"</code> if the authorize request had a <code>code_challenge</code>):</p>
<pre id="exchange">${escapeHtml(curl)}</pre>
<p class="muted">docs/oauth.md goes on from here: calling the API with the access token, refreshing it, revoking it.</p>`,
  );
}
