/**
 * The key the tests' stored secrets are sealed under (docs/operations.md, "Secrets at rest"): the
 * test config's (build-test-app.ts) and every process the tests spawn (cli.ts). 32 bytes, base64.
 */
export const TEST_SECRETS_KEY = Buffer.alloc(32, 'learnbase tests').toString('base64');
