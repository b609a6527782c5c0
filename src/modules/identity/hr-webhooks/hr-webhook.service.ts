import { randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import type { SecretBox } from '../../../platform/secret-box.js';
import { AppError, badRequest, notFound } from '../../../platform/http/app-error.js';
import { httpErrorOf } from '../../../platform/http/storage-errors.js';
import { StorageError } from '../../../platform/database/storage-error.js';
import { textProblem, utf8Text } from '../../../platform/json-guard.js';
import type { Principal, Tenant } from '../../../kernel/principal.js';
import { personRecordsByUniqueValues, getTenantSettings, lockPeopleIdentities } from '../../actors/index.js';
import { type TenancyService, tenantHex, tenantIdFromHex, refuseOtherTenant } from '../../tenancy/index.js';
import { parseHrMessage, type HrEvent } from './hr-event-rules.js';
import {
  claimPendingHrMessage,
  findActiveHrWebhookSecret,
  insertHrMessage,
  insertHrWebhook,
  listHrMessages,
  listHrWebhookRows,
  markHrMessage,
  recordHrProgress,
  revokeHrWebhookRow,
  type HrMessageListing,
  type HrWebhookListing,
} from './hr-webhook.repository.js';
import { lockedPlan, newPersonIfi, personKeys, writePerson, type IdentityPeople, type IdentityWriter } from '../identity-person.service.js';
import { openHrWebhookSecret, sealHrWebhookSecret } from '../stored-secret.service.js';
import { hrWebhookPrincipal } from '../../auth/index.js';

export type { HrMessageListing, HrWebhookListing };

/**
 * HR webhooks (docs/identity.md, "HR webhooks"): an HR system posts joiners, movers and leavers to
 * its endpoint, each message signed with the endpoint's secret as Standard Webhooks says
 * (HMAC-SHA256 over `webhook-id.webhook-timestamp.body`; a timestamp more than five minutes away is
 * refused). A verified message is stored before it is acknowledged (202) and applied after, by
 * HrMessageApplier, in the order received per tenant: nothing acknowledged is lost when the process
 * dies, and a message id received twice is applied once.
 */

/** An endpoint id names its tenant: `hrw_<tenant hex>_<16 hex>`. */
const HR_WEBHOOK_ID = /^hrw_([0-9a-f]{32})_[0-9a-f]{16}$/;
/** The longest `webhook-id` kept (the sender's message id). */
const MAX_MESSAGE_ID = 200;

export interface IssuedHrWebhook extends HrWebhookListing {
  /** The signing secret, `whsec_<base64>`: shown only in this answer. */
  secret: string;
  /** Where the HR system posts: the server's public URL followed by this path. */
  path: string;
}

export const hrWebhookPath = (id: string) => `/hooks/hr/${id}`;

/** A new endpoint of the tenant; its secret is stored sealed under `secrets`' key (503 secrets.no_key without one). */
export async function issueHrWebhook(sql: SqlClient, secrets: SecretBox, tenant: Tenant): Promise<IssuedHrWebhook> {
  const id = `hrw_${tenantHex(tenant.id)}_${randomBytes(8).toString('hex')}`;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const listing = await insertHrWebhook(sql, tenant.id, id, sealHrWebhookSecret(secrets, tenant.id, id, secret));
  return { ...listing, secret, path: hrWebhookPath(id) };
}

export function listHrWebhooks(sql: SqlClient, tenant: Tenant): Promise<HrWebhookListing[]> {
  return listHrWebhookRows(sql, tenant.id);
}

/** Revokes the endpoint: its next message is refused. 404 when the tenant has no such endpoint. */
export async function revokeHrWebhook(sql: SqlClient, tenant: Tenant, id: string): Promise<HrWebhookListing> {
  const revoked = HR_WEBHOOK_ID.test(id) ? await revokeHrWebhookRow(sql, tenant.id, id) : undefined;
  if (!revoked) throw notFound('identity.hr_webhook_not_found', `Tenant "${tenant.name}" has no HR webhook ${id}.`, { id });
  return revoked;
}

/** The tenant's latest messages, newest first: what each did, or is still waiting. */
export function listHrWebhookMessages(sql: SqlClient, tenant: Tenant, limit: number): Promise<HrMessageListing[]> {
  return listHrMessages(sql, tenant.id, limit);
}

const unauthorized = (message: string) => new AppError('identity.webhook_unauthorized', 401, message);

/** Who a message is received for: the tenant the request names (X-SVC-Tenant or the sub-domain, namedTenant's answer). */
export interface HrReceipt {
  named: string | undefined;
  tenancy: Pick<TenancyService, 'findById'>;
}

/**
 * The credential of `POST /hooks/hr/{id}`, which auth's hook checks as identity's authentication
 * scheme once the body is read (hr-webhook-scheme.ts): the endpoint (active), the message's
 * signature and timestamp over the bytes sent (Standard Webhooks), and the tenant the request
 * names, which must be the endpoint's. Answers the webhook's principal.
 */
export async function verifyHrMessage(
  sql: SqlClient,
  secrets: SecretBox,
  id: string,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
  receipt: HrReceipt,
): Promise<Principal> {
  const hex = HR_WEBHOOK_ID.exec(id)?.[1];
  const tenantId = hex === undefined ? undefined : tenantIdFromHex(hex);
  const stored = tenantId === undefined ? undefined : await findActiveHrWebhookSecret(sql, tenantId, id);
  if (tenantId === undefined || stored === undefined) throw unauthorized('No HR webhook has this address, or it was revoked.');
  const secret = openHrWebhookSecret(secrets, tenantId, id, stored);
  const text = utf8Text(body);
  if (text === undefined) throw badRequest('request.invalid_json', 'The body is not UTF-8 text.');
  try {
    new Webhook(secret).verify(text, signedHeaders(headers), { jsonParse: false });
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    throw unauthorized(`The message is not signed by this webhook's secret, or is not recent: ${error.message} (Standard Webhooks).`);
  }
  // The endpoint names its tenant: a request naming another one is refused as SCIM refuses it, not
  // applied to the endpoint's tenant behind the sender's back.
  const tenant = await receipt.tenancy.findById(tenantId);
  if (receipt.named !== undefined) refuseOtherTenant(receipt.named, { name: tenant?.name ?? '' }, 'The HR webhook');
  if (!tenant) throw unauthorized('No HR webhook has this address, or it was revoked.');
  return hrWebhookPrincipal(tenant, id);
}

/** The Standard Webhooks headers as the signature reads them: one value each. */
function signedHeaders(headers: Record<string, string | string[] | undefined>) {
  const single = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(' ') : (value ?? '');
  };
  return {
    'webhook-id': single('webhook-id'),
    'webhook-timestamp': single('webhook-timestamp'),
    'webhook-signature': single('webhook-signature'),
  };
}

/**
 * `POST /hooks/hr/{id}`, its message verified by `principal` (verifyHrMessage: the webhook's):
 * checks the message id and its events, and stores it. Answers whether it was new: false for a
 * message id the endpoint had already received (stored once, applied once).
 */
export async function receiveHrMessage(
  sql: SqlClient,
  principal: Principal,
  body: Buffer,
  headers: Record<string, string | string[] | undefined>,
): Promise<{ tenantId: string; messageId: string; accepted: boolean }> {
  const tenantId = principal.tenant.id;
  const messageId = signedHeaders(headers)['webhook-id'];
  if (messageId.length > MAX_MESSAGE_ID || textProblem(messageId)) {
    throw badRequest('identity.invalid_message_id', `webhook-id must be at most ${MAX_MESSAGE_ID} characters of text.`);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(utf8Text(body) ?? '');
  } catch {
    throw badRequest('request.invalid_json', 'The body is not JSON.');
  }
  parseHrMessage(payload);
  const accepted = await insertHrMessage(sql, { tenantId, webhookId: principal.id, messageId, payload });
  return { tenantId, messageId, accepted };
}

/** What one event did, kept with its message. */
export interface EventOutcome {
  type: HrEvent['type'];
  outcome: 'created' | 'updated' | 'deactivated' | 'unknown_person' | 'refused';
  actorId?: string;
  error?: { code: string; message: string };
}

export interface HrApplierOptions {
  /** Identity's writing of people: a message's events write through it. */
  people: IdentityPeople;
  tenancy: TenancyService;
  /** How often the stored messages are looked at besides when one arrives, in ms. */
  intervalMs: number;
  /** The most events of a message one transaction applies (HR_PIECE_EVENTS). */
  pieceEvents?: number;
  onError: (error: unknown) => void;
}

/**
 * The most events of a message one transaction applies. A batch of 1,000 joiners applied in one
 * transaction held PGlite's one connection for about ten seconds, and every request of every tenant
 * waited for it (health checks included). A piece of 100 holds it for about a second at most there,
 * and the requests queued meanwhile run before the next piece; on PostgreSQL the pieces cost a few
 * commits more.
 */
export const HR_PIECE_EVENTS = 100;

/** A turn of the event loop: what arrived meanwhile (requests, their queries) goes before the next piece. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Applies the stored messages: at once when one arrives in this process (`kick`), and every
 * `intervalMs` for those another process stored, or this one could not apply (the database gone
 * for a moment: the message stays and is tried again).
 *
 * A message is applied in pieces of `pieceEvents` events, one transaction each: the message is
 * claimed (the oldest waiting of its tenant), the events of the piece applied each under a savepoint
 * (an event refused for good, an ambiguous match say, is recorded and the others go on), and the
 * message's progress recorded (how many events, what they did; applied once the last is), in that
 * transaction. Between pieces the event loop turns, so other requests get the database. The events
 * of a message are independent (each has its own outcome), so nothing is half-applied: a piece is
 * all or nothing, and a failure that may pass (the database gone) rolls back only the piece in
 * hand, which is applied again, from its first event, when the message is tried again; the pieces
 * before it stay applied and are never applied twice. The tenant's later messages wait until the
 * message is applied whole: its order holds.
 */
export class HrMessageApplier {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: HrApplierOptions) {}

  start(): void {
    this.timer = setInterval(() => this.kick(), this.options.intervalMs);
    this.timer.unref();
    this.kick();
  }

  /** Applies what is waiting, now (or right after the run in progress). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error) => this.options.onError(error))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Stops looking and waits for the message in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** Applies waiting messages, piece by piece, until none is left (or the applier stops). */
  private async drain(): Promise<void> {
    while (!this.stopped && (await this.applyOne())) await nextTurn();
  }

  /** Claims a message and applies its next piece; false when none is waiting. */
  async applyOne(): Promise<boolean> {
    const { sql, credentials } = this.options.people;
    const pieceEvents = this.options.pieceEvents ?? HR_PIECE_EVENTS;
    const done = await sql.transaction(async (tx) => {
      const message = await claimPendingHrMessage(tx);
      if (!message) return undefined;
      // Read in the transaction: on PGlite (one connection) a read outside it would wait for it to end.
      const tenant = await this.options.tenancy.findById(message.tenantId, tx);
      if (!tenant) {
        await markHrMessage(tx, message, { refused: 'The tenant is gone.' });
        return { revoked: [] };
      }
      // Shared: SCIM and sign-ins of other people go on; each event locks its person (lockedPlan).
      await lockPeopleIdentities(tx, tenant.id, []);
      const writer: IdentityWriter = {
        ...this.options.people,
        sql: tx,
        principal: hrWebhookPrincipal(tenant, message.webhookId),
        source: `webhook:${message.webhookId}`,
      };
      const all = parseHrMessage(message.payload);
      const piece = all.slice(message.appliedEvents, message.appliedEvents + pieceEvents);
      const { events, revoked } = await applyEvents(tx, writer, piece);
      const appliedEvents = message.appliedEvents + piece.length;
      await recordHrProgress(tx, message, {
        appliedEvents,
        events: [...message.outcomes, ...events],
        finished: appliedEvents >= all.length,
      });
      return { revoked };
    });
    if (!done) return false;
    await credentials.announce(done.revoked);
    return true;
  }
}

/** Each event of a piece, in order, under a savepoint of its own. */
async function applyEvents(
  tx: SqlClient,
  writer: IdentityWriter,
  piece: HrEvent[],
): Promise<{ events: EventOutcome[]; revoked: string[] }> {
  const settings = await getTenantSettings(tx, writer.principal.tenant, writer.domains.baseDomain);
  const outcomes: EventOutcome[] = [];
  const revoked: string[] = [];
  for (const event of piece) {
    await tx.query('SAVEPOINT hr_event');
    try {
      const applied = await applyEvent(tx, writer, settings, event);
      revoked.push(...applied.revoked);
      outcomes.push(applied.outcome);
      await tx.query('RELEASE SAVEPOINT hr_event');
    } catch (error) {
      // Refused for good: a rule's AppError, or a write the store refuses by name (a StorageError:
      // a userName another person holds). Anything else (the database gone, a collision to retry)
      // fails the message, which is tried again.
      const refusal = error instanceof AppError ? error : error instanceof StorageError ? httpErrorOf(error) : undefined;
      if (!refusal || refusal.status >= 500) throw error;
      await tx.query('ROLLBACK TO SAVEPOINT hr_event');
      outcomes.push({ type: event.type, outcome: 'refused', error: { code: refusal.code, message: refusal.message } });
    }
  }
  return { events: outcomes, revoked };
}

const eventErrors = {
  ambiguous: () => new AppError('identity.ambiguous_person', 409, 'The values sent identify two different people.'),
  noName: () => new AppError('identity.name_required', 400, 'Nobody matches these values, and a new person needs a name.'),
  noUniqueValue: (names: readonly string[]) =>
    new AppError(
      'identity.no_unique_value',
      400,
      `Nobody matches, and a new person needs a value of one of ${names.join(', ')} (uniqueAttributes).`,
    ),
};

async function applyEvent(
  tx: SqlClient,
  writer: IdentityWriter,
  settings: Awaited<ReturnType<typeof getTenantSettings>>,
  event: HrEvent,
): Promise<{ outcome: EventOutcome; revoked: string[] }> {
  const sent = Object.fromEntries(Object.entries(event.attributes).filter((entry): entry is [string, string] => entry[1] !== null));
  const tenantId = writer.principal.tenant.id;
  const stored = await lockedPlan(tx, tenantId, async () => {
    const matches = await personRecordsByUniqueValues(tx, tenantId, settings.uniqueAttributes, sent);
    if (new Set(matches.map((match) => match.agentKey)).size > 1) throw eventErrors.ambiguous();
    const [found] = matches;
    return { keys: personKeys(settings, sent, found, found ? undefined : newPersonIfi(settings, sent)), value: found };
  });
  if (event.type === 'person.left') {
    if (!stored) return { outcome: { type: event.type, outcome: 'unknown_person' }, revoked: [] };
    const { record, revoked } = await writePerson(tx, writer, settings, { attributes: stored.attributes, active: false }, stored.ifi);
    return { outcome: { type: event.type, outcome: 'deactivated', actorId: record.agentKey }, revoked };
  }
  const attributes: Record<string, string> = { ...(stored?.attributes ?? {}) };
  for (const [name, value] of Object.entries(event.attributes)) {
    if (value === null) delete attributes[name];
    else attributes[name] = value;
  }
  if (!stored && event.name === undefined) throw eventErrors.noName();
  const ifi = stored?.ifi ?? newPersonIfi(settings, attributes);
  if (ifi === undefined) throw eventErrors.noUniqueValue(settings.uniqueAttributes);
  const person = {
    ...(event.name === undefined ? {} : { name: event.name }),
    attributes,
    ...(event.type === 'person.joined' ? { active: true } : {}),
  };
  const { record, revoked } = await writePerson(tx, writer, settings, person, ifi);
  return { outcome: { type: event.type, outcome: stored ? 'updated' : 'created', actorId: record.agentKey }, revoked };
}
