import type { PendingSignOn } from '../../../kernel/admin-sign-on.port.js';
import type { Principal } from '../../../kernel/principal.js';

/**
 * What auth offers the single sign-on of admins (docs/identity.md, "Admins through single
 * sign-on"): identity fills the port `adminSignOn` (kernel/admin-sign-on.port.ts), and once the
 * provider vouched for an admin, finishes the pending authorize request through these.
 */

/** What an identity provider vouched for through a connection: an admin's address and the scope its admins rule gives them. */
export interface ProvidedAdmin {
  email: string;
  /** An organisation entry, or null for the whole tenant. */
  scope: string | null;
  /** The connection: only an admin it made (or makes now) is signed in through it. */
  connection: string;
}

/**
 * Ends an admin's single sign-on (AuthorizeService.finishSignOn): the provider vouched for
 * `admin.email` and made them an admin of `admin.scope`. Answers where to send the browser: the
 * client's redirect URI with the code. 403 `auth.admin_not_made_here` for an admin of that address
 * the connection did not make.
 */
export type FinishAdminSignOn = (
  pending: PendingSignOn,
  admin: ProvidedAdmin,
  by: { principal: Principal; source: string },
) => Promise<string>;

/** Tells every process that these access tokens are revoked (TokenService.announce), once the revocation committed. */
export type AnnounceRevokedTokens = (accessTokenHashes: Buffer[]) => Promise<void>;
