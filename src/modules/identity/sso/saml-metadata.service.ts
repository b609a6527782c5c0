import type { SqlClient } from '../../../platform/database/sql-client.js';
import { AppError } from '../../../platform/http/app-error.js';
import { OutboundError, type OutboundHttp } from '../../../platform/outbound-http.js';
import type { Principal, Tenant } from '../../../kernel/principal.js';
import { recordAudit } from '../../audit/index.js';
import type { IdpMetadata } from './saml-metadata-rules.js';
import { MAX_METADATA_BYTES, metadataOfUrl, metadataProblem } from './sso-connection-rules.js';
import {
  claimMetadataSource,
  findDueMetadataSources,
  findMetadataSource,
  recordMetadataReading,
  type MetadataSource,
  type SsoConnection,
} from './sso.repository.js';
import { ssoPrincipal } from '../../auth/index.js';

/**
 * A SAML connection named by its metadata URL follows its provider (docs/identity.md, "When the
 * provider changes its key"): the URL is read again once a day (an hour after a failed try) by one
 * of the server processes, and at an admin's request. What it describes now replaces the entry
 * point and the certificates, so a provider that publishes its next signing key ahead of using it
 * (Entra ID, AD FS, Keycloak) is followed without anyone sending the connection again. A document
 * that cannot be read, or that names another provider, changes nothing: the problem is kept on the
 * connection and logged, and the connection goes on as it was.
 */

/** How long a reading of the metadata holds. */
export const METADATA_REFRESH_MS = 24 * 3_600_000;
/** How long after a failed try the next one is. */
export const METADATA_RETRY_MS = 3_600_000;
/** The most connections one round reads. */
const ROUND_LIMIT = 50;

/**
 * The provider's metadata at `url`, read through the outbound guard (no redirect followed, at most
 * MAX_METADATA_BYTES, within its time limits); 400 naming /metadataUrl. A target the guard refuses
 * and one that does not answer are told alike ("it could not be reached"): an admin cannot use the
 * URL to learn what listens where (platform/outbound-http.ts).
 */
export async function fetchMetadata(outbound: OutboundHttp, url: string): Promise<IdpMetadata> {
  let text: string;
  try {
    text = (await outbound.get(url, { maxBytes: MAX_METADATA_BYTES })).toString('utf8');
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    throw metadataProblem('/metadataUrl', `could not be read: ${error.message}`);
  }
  return metadataOfUrl(text, { httpOnLoopback: outbound.policy.allowLoopback });
}

/** What one reading did: what changed (`entryPoint`, `certificates`), or the problem that left the connection as it was. */
export type MetadataReading =
  | { connection: SsoConnection; changed: Array<'entryPoint' | 'certificates'> }
  | { connection: SsoConnection; problem: string }
  /** Another reading or a PUT took the connection meanwhile: this one stored nothing. */
  | { connection: undefined };

/** The words of a metadata problem (metadataOfUrl's 400 names it under /metadataUrl). */
function problemOf(error: unknown): string {
  const problems = error instanceof AppError ? (error.details?.problems as Array<{ message: string }> | undefined) : undefined;
  return problems?.[0]?.message ?? (error as Error).message;
}

/**
 * Reads `source`'s metadata URL once, if this process can take it (claimMetadataSource), and
 * stores what it found. The audit entry (`sso_connection.refreshed`, by `by`) records a change.
 */
async function readSource(
  sql: SqlClient,
  outbound: OutboundHttp,
  source: MetadataSource,
  by: { principal: Principal; source?: string },
): Promise<MetadataReading> {
  const claimedAt = new Date().toISOString();
  if (!(await claimMetadataSource(sql, source, claimedAt))) return { connection: undefined };
  let metadata: IdpMetadata;
  try {
    metadata = await fetchMetadata(outbound, source.metadataUrl);
  } catch (error) {
    const problem = problemOf(error);
    const connection = await recordMetadataReading(sql, source, claimedAt, { problem });
    return connection ? { connection, problem } : { connection: undefined };
  }
  if (metadata.entityId !== source.idpEntityId) {
    const problem = `it now describes the provider "${metadata.entityId}", not "${source.idpEntityId}": send the connection again (PUT) to change providers`;
    const connection = await recordMetadataReading(sql, source, claimedAt, { problem });
    return connection ? { connection, problem } : { connection: undefined };
  }
  const changed = [
    ...(metadata.entryPoint === source.entryPoint ? [] : (['entryPoint'] as const)),
    ...(sameList(metadata.certificates, source.certificates) ? [] : (['certificates'] as const)),
  ];
  return sql.transaction(async (tx) => {
    const connection = await recordMetadataReading(tx, source, claimedAt, metadata);
    if (!connection) return { connection: undefined };
    if (changed.length > 0) {
      await recordAudit(tx, {
        action: 'sso_connection.refreshed',
        principal: by.principal,
        ...(by.source === undefined ? {} : { source: by.source }),
        details: { name: source.name, changed, certificates: metadata.certificates.length },
      });
    }
    return { connection, changed };
  });
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((item, i) => item === b[i]);

/**
 * `POST /api/sso/connections/{name}/refresh`, `learnbase sso refresh`: the connection's metadata URL
 * read now, by an admin or an operator. Answers the connection and what changed; 404 for no such
 * connection, 409 when another reading or a PUT took it meanwhile, 502 for a reading that changed nothing.
 */
export async function refreshConnection(
  sql: SqlClient,
  outbound: OutboundHttp,
  principal: Principal,
  name: string,
  source: string | undefined,
): Promise<{ connection: SsoConnection; changed: Array<'entryPoint' | 'certificates'> }> {
  const tenant = principal.tenant;
  const found = await findMetadataSource(sql, tenant.id, name);
  if (!found) throw MetadataErrors.noMetadataUrl(tenant, name);
  const reading = await readSource(sql, outbound, found, { principal, ...(source === undefined ? {} : { source }) });
  if (reading.connection === undefined) throw MetadataErrors.busy(name);
  if ('problem' in reading) throw MetadataErrors.unusable(reading.problem);
  return reading;
}

/**
 * One round of the daily reading, over every tenant: the connections due (METADATA_REFRESH_MS
 * since the last try, METADATA_RETRY_MS after a failed one), each taken by one process only.
 * Answers what was read, for the log.
 */
export async function refreshDueMetadata(
  sql: SqlClient,
  outbound: OutboundHttp,
  tenantOf: (tenantId: string) => Promise<Tenant | undefined>,
  onProblem: (source: MetadataSource, problem: string) => void,
  now = new Date(),
): Promise<{ read: number; changed: number; problems: number }> {
  const due = await findDueMetadataSources(
    sql,
    new Date(now.getTime() - METADATA_REFRESH_MS),
    new Date(now.getTime() - METADATA_RETRY_MS),
    ROUND_LIMIT,
  );
  const outcome = { read: 0, changed: 0, problems: 0 };
  for (const source of due) {
    const tenant = await tenantOf(source.tenantId);
    if (tenant === undefined) continue;
    // The provider's own doing, audited as the connection's (as the people its sign-ins write).
    const principal = ssoPrincipal(tenant, source.name);
    const reading = await readSource(sql, outbound, source, { principal, source: `sso:${source.name}` });
    if (reading.connection === undefined) continue;
    outcome.read++;
    if ('problem' in reading) {
      outcome.problems++;
      onProblem(source, reading.problem);
    } else if (reading.changed.length > 0) outcome.changed++;
  }
  return outcome;
}

export const MetadataErrors = {
  noMetadataUrl: (tenant: Tenant, name: string) =>
    new AppError(
      'identity.no_metadata_url',
      404,
      `Tenant "${tenant.name}" has no SAML connection "${name}" named by a metadata URL (one given its metadata or certificates is sent again with PUT instead).`,
      { details: { name } },
    ),
  busy: (name: string) =>
    new AppError('identity.metadata_busy', 409, `The connection "${name}" is being read or replaced right now: try again.`, {
      details: { name },
    }),
  unusable: (problem: string) =>
    new AppError('identity.metadata_unusable', 502, `The provider's metadata was not taken: ${problem}. The connection is as it was.`),
};
