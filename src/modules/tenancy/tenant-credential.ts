/**
 * Credentials (API keys, client ids, tokens) embed their tenant's id as 32 hex digits, so any of
 * them names its tenant without a global index and without trusting the request's headers.
 */
export const tenantHex = (tenantId: string): string => tenantId.replaceAll('-', '');

/** The tenant id (a UUID) back from the 32 hex digits a credential carries. */
export const tenantIdFromHex = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
