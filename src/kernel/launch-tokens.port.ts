/**
 * The port `launchTokens`: what the authentication hook needs of launch tokens (the `auth` handed
 * to launched content), and no more. The launch module issues them and fills it; auth only checks
 * them, so auth does not depend on launch (docs/architecture.md, "Declarations, ports and the
 * composition root").
 */
export interface LaunchTokenVerifier {
  /** True when the Basic user-id has the form of a launch token (`launch.<tenant hex>.<session>`). */
  isLaunchUsername(username: string): boolean;
  checkToken(username: string, secret: string): Promise<LaunchCheck>;
}

/** What a valid launch token grants: one actor's data about one activity and registration, until `expiresAtMs`. */
export interface LaunchGrant {
  tenantId: string;
  sessionId: string;
  agentKey: string;
  activityId: string;
  registration: string;
  expiresAtMs: number;
  /** The launching credential (credentialKey): its revocation ends the launch. */
  credentialKey: string;
}

export type LaunchCheck = { valid: true; grant: LaunchGrant } | { valid: false; reason: 'unknown' | 'expired' | 'revoked' };

/** No launch module: no Basic user-id is taken for a launch token. */
export const NO_LAUNCH_TOKENS: LaunchTokenVerifier = {
  isLaunchUsername: () => false,
  checkToken: async () => ({ valid: false, reason: 'unknown' }),
};
