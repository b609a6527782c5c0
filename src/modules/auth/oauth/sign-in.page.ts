import { escapeHtml, htmlPage } from '../../../platform/http/html-page.js';
import type { SignOnConnection } from '../../../kernel/admin-sign-on.port.js';

/** The server-rendered pages of the OAuth browser step: the sign-in form and the demo client's callback page. */

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
  /** The tenant's identity providers an admin may sign in with: a button each. */
  connections: readonly SignOnConnection[];
  /** The console's own client: the admin signs in to this server's console, nothing to authorise. */
  console?: boolean;
}

export function signInPage(model: SignInPageModel): string {
  const client = escapeHtml(model.clientName);
  const tenant = escapeHtml(model.tenantName);
  const invalid = model.error ? ' aria-invalid="true" aria-describedby="sign-in-error"' : '';
  const alert = model.error ? `<div class="alert" role="alert" id="sign-in-error">${escapeHtml(model.error)}</div>\n` : '';
  // Focus goes where the person types next: the e-mail field, or the password after a failure.
  const focusEmail = model.email ? '' : ' autofocus';
  const focusPassword = model.email ? ' autofocus' : '';
  const title = model.console ? 'Sign in to the learnbase console' : `Authorise ${model.clientName}`;
  const intro = model.console
    ? `<p>Sign in with your administrator account of the organisation <strong>${tenant}</strong>.</p>\n`
    : `<p><strong>${client}</strong> asks to use learnbase on behalf of the organisation <strong>${tenant}</strong>.</p>
<p class="muted">Sign in with your administrator account of ${tenant} to allow it. You can cancel and return to ${client} without signing in.</p>
`;
  return htmlPage(
    title,
    `<h1>${escapeHtml(title)}</h1>
${intro}${alert}<form method="post" action="/auth/oauth/authorize">
<input type="hidden" name="request_id" value="${escapeHtml(model.requestId)}">
<input type="hidden" name="client_id" value="${escapeHtml(model.clientId)}">
<input type="hidden" name="csrf_token" value="${escapeHtml(model.csrfToken)}">
${signOnButtons(model.connections)}<label for="email">E-mail address</label>
<input type="email" id="email" name="email" autocomplete="username" required spellcheck="false" autocapitalize="none" value="${escapeHtml(model.email ?? '')}"${invalid}${focusEmail}>
<label for="password">Password</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${invalid}${focusPassword}>
<div class="actions">
<button type="submit" class="primary" name="action" value="authorize">${model.console ? 'Sign in' : 'Sign in and authorise'}</button>
<button type="submit" class="secondary" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>`,
  );
}

/**
 * "Sign in with …" buttons above the password fields, each reading its connection's display name and
 * posting its name: the form's fields are not required for them (formnovalidate).
 */
function signOnButtons(connections: readonly SignOnConnection[]): string {
  if (connections.length === 0) return '';
  const buttons = connections
    .map(
      ({ name, displayName }) =>
        `<button type="submit" class="primary" name="connection" value="${escapeHtml(name)}" formnovalidate>Sign in with ${escapeHtml(displayName)}</button>`,
    )
    .join('\n');
  return `<div class="actions">\n${buttons}\n</div>\n<p class="muted">Or sign in with your e-mail address and password:</p>\n`;
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
    return htmlPage(
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
  return htmlPage(
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
