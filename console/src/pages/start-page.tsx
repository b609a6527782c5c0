import { useState } from 'react';
import { Button, FieldError, Form, Input, Label, TextField } from 'react-aria-components';
import { useSearchParams } from 'react-router';
import { TENANT_NAME, tenantOfAddress } from '../tenant';

/**
 * The console's first page: which organisation (tenant) it is for. `?tenant=NAME` names it (a
 * shared link keeps it); without one the page asks, and the answer goes into the address.
 */
export function StartPage() {
  const [search, setSearch] = useSearchParams();
  const tenant = tenantOfAddress(`?${search.toString()}`);
  const [name, setName] = useState(tenant ?? '');

  return (
    <main className="start">
      <h1>learnbase console</h1>
      {tenant ? (
        <>
          <p>
            Organisation: <strong>{tenant}</strong>
          </p>
          <p className="muted">Signing in to the console comes next; until then the API reference and the guides are at /docs.</p>
          <Button className="secondary" onPress={() => setSearch({})}>
            Choose another organisation
          </Button>
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
