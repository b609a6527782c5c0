import { useState } from 'react';
import { Button, FieldError, Form, Input, Label, TextField } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { TENANT_NAME, tenantOfPage } from '../tenant';

/**
 * The console's first page: which organisation (tenant) it is for. The address's host names it
 * (`acme.learnbase.example`), or `?tenant=NAME` (a shared link keeps it); without either the page
 * asks, and the answer goes into the address.
 */
export function StartPage() {
  const [search, setSearch] = useSearchParams();
  const tenant = tenantOfPage(document, `?${search.toString()}`);
  const [name, setName] = useState(tenant?.name ?? '');

  return (
    <main className="start">
      <h1>learnbase console</h1>
      {tenant ? (
        <>
          <p>
            Organisation: <strong>{tenant.name}</strong>
          </p>
          <p className="muted">Signing in to the console comes next; until then the API reference and the guides are at /docs.</p>
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
            <FieldError />
          </TextField>
          <Button type="submit">Continue</Button>
        </Form>
      )}
    </main>
  );
}
