/** An actor as the API answers it (GET /api/actors, POST /api/actors/search): an xAPI Agent with learnbase's extensions. */
export interface Actor {
  objectType?: 'Agent' | 'Group';
  name?: string;
  mbox?: string;
  mbox_sha1sum?: string;
  openid?: string;
  account?: { homePage: string; name: string };
  extensions?: Record<string, unknown>;
}

export interface OrganisationLink {
  id: string;
  parentId?: string;
  attributes?: Record<string, unknown>;
  ancestors?: { id: string; parentId?: string; attributes?: Record<string, unknown> }[];
}

export interface JobLink {
  id: string;
  name?: string;
  competencies?: { Name: string; Description?: string }[];
  attributes?: Record<string, unknown>;
}

/** The extension whose key ends so (`…/api/ext/agent/attributes`): its domain is the server's setting. */
function extension<T>(actor: Actor, name: 'attributes' | 'organisation' | 'job'): T | undefined {
  const key = Object.keys(actor.extensions ?? {}).find((candidate) => candidate.endsWith(`/api/ext/agent/${name}`));
  return key === undefined ? undefined : (actor.extensions?.[key] as T);
}

export const attributesOf = (actor: Actor) => extension<Record<string, unknown>>(actor, 'attributes') ?? {};
export const organisationOf = (actor: Actor) => extension<OrganisationLink>(actor, 'organisation');
export const jobOf = (actor: Actor) => extension<JobLink>(actor, 'job');

/** The agent's identifier alone, as the API's `agent` parameters take it. */
export function ifiOf(actor: Actor): Actor {
  if (actor.account) return { objectType: 'Agent', account: actor.account };
  if (actor.mbox) return { objectType: 'Agent', mbox: actor.mbox };
  if (actor.mbox_sha1sum) return { objectType: 'Agent', mbox_sha1sum: actor.mbox_sha1sum };
  return { objectType: 'Agent', openid: actor.openid };
}

/** How a person is named on a page: their name, else their identifier. */
export function displayName(actor: Actor): string {
  return actor.name ?? actor.account?.name ?? actor.mbox?.replace(/^mailto:/, '') ?? actor.openid ?? actor.mbox_sha1sum ?? 'Unnamed';
}

export function identifierText(actor: Actor): string {
  if (actor.account) return `${actor.account.name} at ${actor.account.homePage}`;
  return actor.mbox?.replace(/^mailto:/, '') ?? actor.openid ?? actor.mbox_sha1sum ?? '';
}

/** The criteria that find exactly this person by their identifier (POST /api/actors/search). */
export function criteriaOfIfi(agent: Actor): unknown {
  if (agent.account) {
    return {
      and: [
        { field: 'account.homePage', op: 'eq', value: agent.account.homePage },
        { field: 'account.name', op: 'eq', value: agent.account.name },
      ],
    };
  }
  for (const field of ['mbox', 'mbox_sha1sum', 'openid'] as const) {
    const value = agent[field];
    if (value) return { field, op: 'eq', value };
  }
  return { not: {} };
}
