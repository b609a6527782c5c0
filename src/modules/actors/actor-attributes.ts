/**
 * How an actor is shown (interface 2.6): an xAPI Agent with its IFI, its name, and extensions
 * carrying the imported attributes and what they link to. The extension keys are IRIs under the
 * service's own domain (`{base-domain}`), so they cannot clash with anyone else's extensions.
 */
import type { Job, OrgEntry, OrgLink } from '../imports/org-structure.service.js';

export const extensionKeys = (serviceDomain: string) => ({
  attributes: `http://${serviceDomain}/api/ext/agent/attributes`,
  organisation: `http://${serviceDomain}/api/ext/agent/organisation`,
  job: `http://${serviceDomain}/api/ext/agent/job`,
});

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
 * The Agent of interface 2.6. The name is the imported one, else the first name a statement gave.
 * Extensions appear only when there is something in them: an actor only statements named has none.
 */
export function toAgent(actor: StoredActor, links: ActorLinks, serviceDomain: string): Record<string, unknown> {
  const keys = extensionKeys(serviceDomain);
  const { objectType: _objectType, ...ifi } = actor.ifi;
  const shaped: Record<string, unknown> = { objectType: 'Agent' };
  const name = actor.name ?? actor.names[0];
  if (name !== undefined) shaped.name = name;
  Object.assign(shaped, ifi);
  if (actor.attributes) {
    const extensions: Record<string, unknown> = { [keys.attributes]: actor.attributes };
    if (links.organisation) extensions[keys.organisation] = organisationExtension(links.organisation);
    if (links.job) extensions[keys.job] = jobExtension(links.job);
    shaped.extensions = extensions;
  }
  return shaped;
}
