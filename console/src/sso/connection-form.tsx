import { type ReactNode, useEffect, useRef, useState } from 'react';
import {
  Button,
  Checkbox,
  FieldError,
  FileTrigger,
  Form,
  Input,
  Label,
  Radio,
  RadioGroup,
  Text,
  TextArea,
  TextField,
} from 'react-aria-components';
import { ApiError, api, messageOf } from '../lib/api';
import {
  bodyOf,
  type ConnectionForm,
  type ConnectionView,
  DEFAULT_SCOPES,
  type Field,
  hasProblems,
  localProblems,
  newClaimRow,
  newScopeRow,
  noProblems,
  type Problems,
  problemsOfRefusal,
} from './connection-model';

/**
 * The form that creates or replaces a single sign-on connection (`PUT /api/sso/connections/{name}`,
 * docs/identity.md, "Single sign-on"): an OpenID Connect or SAML 2.0 provider, the claims it maps,
 * and who becomes an admin through it. A refusal is said beside the field its path names, nothing
 * saved; `onSaved` gets what the API answered (what to give the provider).
 */
export function ConnectionEditor({
  initial,
  editing,
  tenant,
  existingNames,
  onSaved,
  onCancel,
}: {
  initial: ConnectionForm;
  /** Editing the connection of this name (its name fixed), else creating one. */
  editing: boolean;
  tenant: string;
  existingNames: readonly string[];
  onSaved: (connection: ConnectionView, created: boolean) => void;
  onCancel: () => void;
}) {
  const [form, setForm] = useState(initial);
  const [problems, setProblems] = useState<Problems>(noProblems);
  const [refused, setRefused] = useState(false);
  const [busy, setBusy] = useState(false);
  const [round, setRound] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const set = (patch: Partial<ConnectionForm>) => setForm((before) => ({ ...before, ...patch }));
  const problem = (field: Field) => problems.fields[field];

  // After a refusal, the first field said to be wrong takes the focus (else the note above the buttons).
  useEffect(() => {
    if (round === 0) return;
    const invalid = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    const first = invalid && !invalid.matches('input, textarea') ? invalid.querySelector<HTMLElement>('input') : invalid;
    (first ?? formRef.current?.querySelector<HTMLElement>('.form-refusal'))?.focus();
  }, [round]);

  async function save() {
    const name = form.name.trim();
    const local = localProblems(form, editing ? [] : existingNames);
    setRefused(false);
    if (hasProblems(local)) {
      setProblems(local);
      setRound((n) => n + 1);
      return;
    }
    setBusy(true);
    try {
      // Creating never replaces: a connection made meanwhile (another admin, another tab) is a 412.
      const saved = await api<ConnectionView>('PUT', `/api/sso/connections/${encodeURIComponent(name)}`, {
        body: bodyOf(form),
        headers: editing ? {} : { 'if-none-match': '*' },
      });
      setProblems(noProblems());
      onSaved(saved, !editing);
    } catch (error) {
      setProblems(
        error instanceof ApiError && error.status === 400
          ? problemsOfRefusal(error, form)
          : error instanceof ApiError && error.status === 412
            ? {
                ...noProblems(),
                fields: {
                  name: `A connection named ${name} exists already (made since the list was read): edit it from the list instead.`,
                },
              }
            : { ...noProblems(), form: [messageOf(error)] },
      );
      setRefused(true);
      setRound((n) => n + 1);
    } finally {
      setBusy(false);
    }
  }

  const fieldProblems =
    Object.keys(problems.fields).length + Object.keys(problems.claimRows).length + Object.keys(problems.scopeRows).length;
  const title = editing ? `Edit the connection ${form.name}` : 'Create a connection';
  return (
    <Form
      ref={formRef}
      className="connection-form"
      aria-label={title}
      validationBehavior="aria"
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h3>{title}</h3>
      <div className="columns">
        <TextField
          value={form.name}
          onChange={(name) => set({ name })}
          isReadOnly={editing}
          isRequired
          isInvalid={problem('name') !== undefined}
          autoFocus={!editing}
        >
          <Label>Name</Label>
          <Input spellCheck={false} autoComplete="off" />
          <Text slot="description" className="hint">
            {editing
              ? 'A connection keeps its name: to rename it, create another and delete this one.'
              : '1 to 40 lower-case letters, digits and inner hyphens: what links (connection=) and the audit name it by.'}
          </Text>
          <FieldError>{problem('name')}</FieldError>
        </TextField>
        <TextField
          value={form.displayName}
          onChange={(displayName) => set({ displayName })}
          isInvalid={problem('displayName') !== undefined}
          autoFocus={editing}
        >
          <Label>Display name (optional)</Label>
          <Input autoComplete="off" />
          <Text slot="description" className="hint">
            What the sign-in page's button reads: "Sign in with …". Empty: the name.
          </Text>
          <FieldError>{problem('displayName')}</FieldError>
        </TextField>
      </div>
      <RadioGroup
        value={form.protocol}
        onChange={(protocol) => set({ protocol: protocol as ConnectionForm['protocol'] })}
        orientation="horizontal"
        className="choices"
        isInvalid={problem('protocol') !== undefined}
      >
        <Label>Protocol</Label>
        <Radio value="oidc">OpenID Connect</Radio>
        <Radio value="saml">SAML 2.0</Radio>
        <FieldError>{problem('protocol')}</FieldError>
      </RadioGroup>

      {form.protocol === 'oidc' ? (
        <OidcFields form={form} set={set} problem={problem} />
      ) : (
        <SamlFields form={form} set={set} problem={problem} tenant={tenant} />
      )}

      <RadioGroup
        value={form.emailTrust}
        onChange={(emailTrust) => set({ emailTrust: emailTrust as ConnectionForm['emailTrust'] })}
        className="choices"
        isInvalid={problem('emailTrust') !== undefined}
      >
        <Label>Which e-mail addresses the connection trusts</Label>
        <Text slot="description" className="hint">
          A trusted address finds the person or admin who holds it and is written to them; an untrusted one is as if the provider had not
          sent it.
        </Text>
        <Radio value="unless-unverified">Every address, unless the provider says it is not verified (the default)</Radio>
        <Radio value="verified-only">Only an address the provider says is verified</Radio>
        <FieldError>{problem('emailTrust')}</FieldError>
      </RadioGroup>

      <ClaimsFields form={form} set={set} problems={problems} />
      <AdminsFields form={form} set={set} problems={problems} />

      {(refused || problems.form.length > 0) && (
        <div className="note error form-refusal" role="alert" tabIndex={-1}>
          <p>
            Nothing was saved
            {fieldProblems > 0
              ? `: ${fieldProblems === 1 ? 'one problem is' : `${fieldProblems} problems are`} said beside the fields.`
              : '.'}
          </p>
          {problems.form.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </div>
      )}
      <div className="actions">
        <Button type="submit" isDisabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save the connection' : 'Create the connection'}
        </Button>
        <Button className="secondary" onPress={onCancel}>
          Cancel
        </Button>
      </div>
    </Form>
  );
}

type Setter = (patch: Partial<ConnectionForm>) => void;

/** A text field of the form: its label, a hint, and the API's words when it refused the value. */
function FormField({
  label,
  value,
  onChange,
  problem,
  hint,
  type,
  placeholder,
  multiline,
  isDisabled,
  autoComplete = 'off',
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  problem: string | undefined;
  hint?: ReactNode;
  type?: 'url' | 'password';
  placeholder?: string;
  multiline?: boolean;
  isDisabled?: boolean;
  autoComplete?: string;
}) {
  return (
    <TextField value={value} onChange={onChange} isInvalid={problem !== undefined} type={type} isDisabled={isDisabled}>
      <Label>{label}</Label>
      {multiline ? (
        <TextArea rows={4} spellCheck={false} placeholder={placeholder} />
      ) : (
        <Input spellCheck={false} placeholder={placeholder} autoComplete={autoComplete} />
      )}
      {hint && (
        <Text slot="description" className="hint">
          {hint}
        </Text>
      )}
      <FieldError>{problem}</FieldError>
    </TextField>
  );
}

function OidcFields({ form, set, problem }: { form: ConnectionForm; set: Setter; problem: (field: Field) => string | undefined }) {
  return (
    <div className="columns">
      <FormField
        label="Issuer URL"
        type="url"
        value={form.issuer}
        onChange={(issuer) => set({ issuer })}
        problem={problem('issuer')}
        placeholder="https://login.example.com/realms/acme"
        hint="https, no query: its /.well-known/openid-configuration is read at the first sign-in."
      />
      <FormField label="Client id" value={form.clientId} onChange={(clientId) => set({ clientId })} problem={problem('clientId')} />
      <div>
        <FormField
          label={form.hasStoredSecret ? 'Client secret' : 'Client secret (optional)'}
          type="password"
          autoComplete="new-password"
          value={form.clientSecret}
          onChange={(clientSecret) => set({ clientSecret })}
          problem={problem('clientSecret')}
          isDisabled={form.hasStoredSecret && form.dropSecret}
          hint={
            form.hasStoredSecret
              ? 'A secret is stored, encrypted, and never shown again. Leave this empty to keep it, or enter a new one to replace it.'
              : 'Stored encrypted and never shown again. None: a public client (PKCE only).'
          }
        />
        {form.hasStoredSecret && (
          <Checkbox className="check" isSelected={form.dropSecret} onChange={(dropSecret) => set({ dropSecret, clientSecret: '' })}>
            Remove the stored secret: a public client (PKCE only)
          </Checkbox>
        )}
      </div>
      <FormField
        label="Scopes (optional)"
        value={form.scopes}
        onChange={(scopes) => set({ scopes })}
        problem={problem('scopes')}
        placeholder={DEFAULT_SCOPES}
        hint={`Separated by spaces, openid among them. Empty: ${DEFAULT_SCOPES}.`}
      />
    </div>
  );
}

function SamlFields({
  form,
  set,
  problem,
  tenant,
}: {
  form: ConnectionForm;
  set: Setter;
  problem: (field: Field) => string | undefined;
  tenant: string;
}) {
  const [reading, setReading] = useState<string>();
  return (
    <>
      <RadioGroup
        value={form.samlSource}
        onChange={(samlSource) => set({ samlSource: samlSource as ConnectionForm['samlSource'] })}
        className="choices"
        isInvalid={problem('provider') !== undefined}
      >
        <Label>How the identity provider is named</Label>
        <Radio value="xml">Its metadata document (a file, or pasted)</Radio>
        <Radio value="url">Its metadata URL</Radio>
        <Radio value="explicit">Its entity ID, sign-in address and certificates</Radio>
        <FieldError>{problem('provider')}</FieldError>
      </RadioGroup>
      {form.storedCertificates > 0 && form.samlSource !== 'url' && (
        <p className="note">
          The connection keeps {form.storedCertificates === 1 ? 'one certificate' : `${form.storedCertificates} certificates`} of{' '}
          <code>{form.idpEntityId}</code>, which the API does not give back: name the provider again, by its metadata or its certificates,
          to save the connection.
        </p>
      )}
      {form.samlSource === 'xml' && (
        <div className="metadata-file">
          <FileTrigger
            acceptedFileTypes={['.xml', 'application/xml', 'text/xml', 'application/samlmetadata+xml']}
            onSelect={(files) => {
              const file = files?.[0];
              if (!file) return;
              setReading(undefined);
              file.text().then(
                (metadataXml) => set({ metadataXml, metadataFileName: file.name }),
                (error: unknown) => setReading(`${file.name} could not be read: ${messageOf(error)}`),
              );
            }}
          >
            <Button className="secondary">Choose the metadata file</Button>
          </FileTrigger>
          <p className="muted" aria-live="polite">
            {reading ?? (form.metadataFileName ? `Read from ${form.metadataFileName}.` : 'Or paste the document below.')}
          </p>
          <FormField
            label="Metadata XML"
            multiline
            value={form.metadataXml}
            onChange={(metadataXml) => set({ metadataXml, metadataFileName: '' })}
            problem={problem('metadataXml')}
            hint='The provider’s "Federation Metadata XML": an EntityDescriptor with an IDPSSODescriptor.'
          />
        </div>
      )}
      {form.samlSource === 'url' && (
        <FormField
          label="Metadata URL"
          type="url"
          value={form.metadataUrl}
          onChange={(metadataUrl) => set({ metadataUrl })}
          problem={problem('metadataUrl')}
          hint="https, public: read when saved, then daily (Refresh metadata reads it at once), so a provider rolling its key is followed."
        />
      )}
      {form.samlSource === 'explicit' && (
        <div className="columns">
          <FormField
            label="Identity provider entity ID"
            value={form.idpEntityId}
            onChange={(idpEntityId) => set({ idpEntityId })}
            problem={problem('idpEntityId')}
            hint="The Issuer of its assertions."
          />
          <FormField
            label="Sign-in address (SSO entry point)"
            type="url"
            value={form.entryPoint}
            onChange={(entryPoint) => set({ entryPoint })}
            problem={problem('entryPoint')}
            hint="Its SingleSignOnService (HTTP-Redirect), https."
          />
          <FormField
            label="Signing certificates"
            multiline
            value={form.certificates}
            onChange={(certificates) => set({ certificates })}
            problem={problem('certificates')}
            hint="PEM, or base64 DER; up to five while the provider rolls its key (base64 ones separated by an empty line)."
          />
        </div>
      )}
      <div className="columns">
        <FormField
          label="Service provider entity ID (optional)"
          value={form.spEntityId}
          onChange={(spEntityId) => set({ spEntityId })}
          problem={problem('spEntityId')}
          placeholder={`urn:learnbase:${tenant}:${form.name.trim() || 'name'}`}
          hint="This server's entity ID at the provider, the audience its assertions name. Empty: the placeholder's."
        />
        <Checkbox
          className="check sha1"
          isSelected={form.allowSha1}
          onChange={(allowSha1) => set({ allowSha1 })}
          isInvalid={problem('allowSha1') !== undefined}
        >
          Take SHA-1 signatures and digests (only while the provider moves to SHA-256: SHA-1 collisions can be made)
        </Checkbox>
      </div>
    </>
  );
}

function ClaimsFields({ form, set, problems }: { form: ConnectionForm; set: Setter; problems: Problems }) {
  const change = (id: number, patch: { claim?: string; attribute?: string }) =>
    set({ claims: form.claims.map((row) => (row.id === id ? { ...row, ...patch } : row)) });
  return (
    <fieldset className="rows">
      <legend>Claims</legend>
      <p className="hint">
        Which claims ({form.protocol === 'saml' ? 'the attributes, by Name; the NameID as nameID' : 'of the ID token'}) become which person
        attributes; a person is found by the organisation's unique attributes among them. None: the server's default (
        {form.protocol === 'saml'
          ? 'email, givenName and sn, and the claim URIs of Entra ID and AD FS'
          : 'email, given_name and family_name'}
        ).
      </p>
      {problems.fields.claims && <p className="problem">{problems.fields.claims}</p>}
      {form.claims.map((row, index) => (
        <div className="row" key={row.id}>
          <TextField value={row.claim} onChange={(claim) => change(row.id, { claim })} isInvalid={problems.claimRows[row.id] !== undefined}>
            <Label>Claim {index + 1}</Label>
            <Input spellCheck={false} autoComplete="off" />
            <FieldError>{problems.claimRows[row.id]}</FieldError>
          </TextField>
          <TextField value={row.attribute} onChange={(attribute) => change(row.id, { attribute })}>
            <Label>Person attribute {index + 1}</Label>
            <Input spellCheck={false} autoComplete="off" />
          </TextField>
          <Button
            className="secondary small"
            aria-label={`Remove claim ${index + 1}${row.claim ? ` (${row.claim})` : ''}`}
            onPress={() => set({ claims: form.claims.filter((other) => other.id !== row.id) })}
          >
            Remove
          </Button>
        </div>
      ))}
      <Button className="secondary small" onPress={() => set({ claims: [...form.claims, newClaimRow()] })}>
        Add a claim
      </Button>
    </fieldset>
  );
}

function AdminsFields({ form, set, problems }: { form: ConnectionForm; set: Setter; problems: Problems }) {
  const change = (id: number, patch: { value?: string; entry?: string }) =>
    set({ adminScopes: form.adminScopes.map((row) => (row.id === id ? { ...row, ...patch } : row)) });
  return (
    <fieldset className="rows">
      <legend>Admins through single sign-on (optional)</legend>
      <p className="hint">
        A person signing in on the sign-in page whose claim holds the value becomes an admin of the whole organisation; one holding a value
        listed below, an admin of that organisation entry and what is below it. Empty: nobody becomes an admin through this connection.
      </p>
      <div className="columns">
        <FormField
          label="Admins claim"
          value={form.adminClaim}
          onChange={(adminClaim) => set({ adminClaim })}
          problem={problems.fields.admins}
          placeholder="groups"
          hint="The claim (SAML: attribute) holding the values below, one or a list."
        />
        <FormField
          label="Value making an admin of the whole organisation"
          value={form.adminValue}
          onChange={(adminValue) => set({ adminValue })}
          problem={undefined}
        />
      </div>
      {form.adminScopes.map((row, index) => (
        <div className="row" key={row.id}>
          <TextField value={row.value} onChange={(value) => change(row.id, { value })} isInvalid={problems.scopeRows[row.id] !== undefined}>
            <Label>Value {index + 1}</Label>
            <Input spellCheck={false} autoComplete="off" />
            <FieldError>{problems.scopeRows[row.id]}</FieldError>
          </TextField>
          <TextField value={row.entry} onChange={(entry) => change(row.id, { entry })}>
            <Label>Organisation entry {index + 1}</Label>
            <Input spellCheck={false} autoComplete="off" />
          </TextField>
          <Button
            className="secondary small"
            aria-label={`Remove value ${index + 1}${row.value ? ` (${row.value})` : ''}`}
            onPress={() => set({ adminScopes: form.adminScopes.filter((other) => other.id !== row.id) })}
          >
            Remove
          </Button>
        </div>
      ))}
      <Button className="secondary small" onPress={() => set({ adminScopes: [...form.adminScopes, newScopeRow()] })}>
        Add a value making an admin of one organisation entry
      </Button>
    </fieldset>
  );
}
