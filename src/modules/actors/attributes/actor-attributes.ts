/**
 * How an actor is shown (interface 2.6): an xAPI Agent (or identified Group) with its IFI, its
 * name, and extensions carrying the attributes and what they link to. The extension keys are IRIs
 * under the service's own domain (`serviceDomain`, LEARNBASE_SERVICE_DOMAIN), so they cannot clash
 * with anyone else's extensions.
 */
import type { Job, OrgEntry, OrgLink } from '../../organisation/index.js';

export const extensionKeys = (serviceDomain: string) => ({
  attributes: `http://${serviceDomain}/api/ext/agent/attributes`,
  organisation: `http://${serviceDomain}/api/ext/agent/organisation`,
  job: `http://${serviceDomain}/api/ext/agent/job`,
});

/** The path of the attributes key; a client may send it under any host (isAttributesKey). */
export const ATTRIBUTES_PATH = '/api/ext/agent/attributes';

/**
 * True for `http(s)://{any host}/api/ext/agent/attributes`: a client that stored the key under
 * another host (an older service domain, a staging copy) still writes the attributes.
 */
export function isAttributesKey(key: string): boolean {
  if (!key.startsWith('http://') && !key.startsWith('https://')) return false;
  try {
    const url = new URL(key);
    return url.pathname === ATTRIBUTES_PATH && url.search === '' && url.hash === '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

/** One actor as the store holds it. */
export interface StoredActor {
  id: string;
  agentKey: string;
  /** The IFI alone: `{account: {homePage, name}}`, `{mbox}`, … */
  ifi: Record<string, unknown>;
  /** The name an import gave, if any. */
  name: string | null;
  /** The names statements gave. */
  names: string[];
  attributes: Record<string, string> | null;
  /** 'Group' for an identified group a statement named; absent or 'Agent' otherwise. */
  objectType?: 'Agent' | 'Group';
  /** A group's members as it was last sent with them (IFI and name each), when known. */
  members?: Record<string, unknown>[] | null;
}

/** What the user's attributes link to (tenant settings organisationAttribute and jobAttribute). */
export interface ActorLinks {
  organisation?: OrgLink;
  job?: Job;
}

const entryJson = (entry: OrgEntry) => ({
  id: entry.id,
  ...(entry.parentId !== undefined ? { parentId: entry.parentId } : {}),
  attributes: entry.attributes,
});

/** The organisation extension: the entry's id and attributes, then its ancestors, parent first. */
export const organisationExtension = (link: OrgLink) => ({ ...entryJson(link.entry), ancestors: link.ancestors.map(entryJson) });

export const jobExtension = (job: Job) => ({ id: job.id, name: job.name, competencies: job.competencies, attributes: job.attributes });

/**
 * The Agent (or Group) of interface 2.6. The name is the imported or upserted one, else the first
 * name a statement gave. A group shows its `member` when a statement gave them. Extensions appear
 * only when there is something in them: an actor only statements named has none.
 */
export function toAgent(actor: StoredActor, links: ActorLinks, serviceDomain: string): Record<string, unknown> {
  const keys = extensionKeys(serviceDomain);
  const { objectType: _objectType, ...ifi } = actor.ifi;
  const name = actor.name ?? actor.names[0];
  const shaped: Record<string, unknown> = { objectType: actor.objectType ?? 'Agent', ...(name !== undefined ? { name } : {}), ...ifi };
  if (actor.objectType === 'Group' && actor.members) {
    shaped.member = actor.members.map((member) => ({ objectType: 'Agent', ...member }));
  }
  if (actor.attributes) {
    const extensions: Record<string, unknown> = { [keys.attributes]: actor.attributes };
    if (links.organisation) extensions[keys.organisation] = organisationExtension(links.organisation);
    if (links.job) extensions[keys.job] = jobExtension(links.job);
    shaped.extensions = extensions;
  }
  return shaped;
}
