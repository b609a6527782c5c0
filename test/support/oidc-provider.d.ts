/** oidc-provider ships no types; the tests use a small part of it (test/identity/oidc-fixtures.ts). */
declare module 'oidc-provider' {
  const Provider: new (
    issuer: string,
    configuration: Record<string, unknown>,
  ) => {
    callback(): (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void;
    proxy: boolean;
  };
  export default Provider;
}
