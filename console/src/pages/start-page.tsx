import { useState } from 'react';
import { Button, FieldError, Form, Input, Label, Text, TextField } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { signInHref } from '../lib/session';
import { TENANT_NAME, tenantOfPage } from '../tenant';

/** What the sign-in route's `?error=` says, in words. */
const FAILURES: Record<string, string> = {
  unknown_tenant: 'There is no organisation by that name here. Check its name (it is in its learnbase address) and try again.',
  access_denied: 'Signing in was cancelled.',
  sign_in_expired: 'That sign-in took too long or was finished in another window. Sign in again.',
  sign_in_failed: 'Signing in did not complete. Sign in again.',
};

/**
 * The console's first page: which organisation (tenant) it is for, then signing in. The address's
 * host names the organisation (`acme.learnbase.example`), or `?tenant=NAME` (a shared link keeps
 * it); without either the page asks, and the answer goes into the address. Signing in goes through
 * the server's sign-in page (password or single sign-on) and comes back to `returnTo`.
 */
export function StartPage({ ended, knownTenant, returnTo = '/' }: { ended?: boolean; knownTenant?: string; returnTo?: string }) {
  const [search, setSearch] = useSearchParams();
  // The organisation of a session that just ended, when the address names none.
  const tenant =
    tenantOfPage(document, `?${search.toString()}`) ?? (knownTenant ? { name: knownTenant, by: 'address' as const } : undefined);
  const [name, setName] = useState(tenant?.name ?? '');
  const failure = search.get('error');
  const back = withoutStartParameters(returnTo);

  return (
    <main className="start">
      <h1>learnbase console</h1>
      {failure && (
        <p className="note error" role="alert">
          {FAILURES[failure] ?? 'Signing in did not complete. Sign in again.'}
        </p>
      )}
      {ended && (
        <p className="note" role="status">
          Your session ended. Sign in again to go on where you were.
        </p>
      )}
      {tenant ? (
        <>
          <p>
            Organisation: <strong>{tenant.name}</strong>
          </p>
          <a className="button" href={signInHref(tenant.by === 'address' ? tenant.name : undefined, back)}>
            Sign in
          </a>
          {tenant.by === 'address' && (
            <Button className="secondary" onPress={() => setSearch({})}>
              Choose another organisation
            </Button>
          )}
        </>
      ) : (
        <Form
          onSubmit={(event) => {
            event.preventDefault();
            setSearch({ tenant: name.trim().toLowerCase() });
          }}
        >
          <TextField
            name="tenant"
            value={name}
            onChange={setName}
            isRequired
            autoFocus
            validate={(value) =>
              TENANT_NAME.test(value.trim().toLowerCase())
                ? null
                : 'An organisation’s name has letters, digits and hyphens (as in its address, acme.learnbase.example).'
            }
          >
            <Label>Your organisation</Label>
            <Input autoComplete="organization" spellCheck={false} />
            <Text slot="description" className="hint">
              Its name in learnbase: the first part of its address (acme in acme.learnbase.example), or the tenant of the link you were
              given.
            </Text>
            <FieldError />
          </TextField>
          <Button type="submit">Continue</Button>
        </Form>
      )}
    </main>
  );
}

/** The page to come back to, without the start page's own `tenant` and `error`. */
function withoutStartParameters(path: string): string {
  const url = new URL(path, 'http://console.invalid');
  url.searchParams.delete('tenant');
  url.searchParams.delete('error');
  return `${url.pathname}${url.search}`;
}
