import { badRequest } from '../../platform/http/app-error.js';

/** The completion records' errors, `completions.reason` (docs/completions.md, "Errors"). */
export const CompletionErrors = {
  invalidQuery: (parameter: string, message: string) => badRequest('completions.invalid_query', message, { parameter }),
  unsupportedVersion: (version: string, supported: readonly string[]) =>
    badRequest('completions.unsupported_version', `Accept-Version ${version} is not supported; supported: ${supported.join(', ')}.`, {
      supported: [...supported],
    }),
};
