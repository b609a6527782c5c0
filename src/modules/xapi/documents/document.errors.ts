import { AppError, badRequest, notFound } from '../../../platform/http/app-error.js';
import { MAX_JSON_DEPTH } from '../../../platform/json-guard.js';

const NOT_MERGEABLE = {
  sent: 'A merge (POST) needs a JSON object sent as application/json.',
  stored: 'The stored document is not a JSON object, so nothing can be merged into it: PUT replaces it.',
  'stored too deep': `The stored document is nested deeper than ${MAX_JSON_DEPTH} levels, so nothing can be merged into it: PUT replaces it.`,
};

export const DocumentErrors = {
  notFound: () => notFound('documents.not_found', 'No document is stored under these parameters.'),
  preconditionFailed: () =>
    new AppError('documents.precondition_failed', 412, 'The If-Match or If-None-Match precondition does not hold for the stored document.'),
  // xAPI 2.0 Part 3 §1.1 / 1.0.3 §6.3 ask for an explanation in the body of this 409: plain text.
  conflict: () => {
    const message =
      'The document already exists and the request has neither If-Match nor If-None-Match. ' +
      'GET the document, then send its ETag in If-Match to overwrite it (or If-None-Match: * to create only).';
    return new AppError('documents.conflict', 409, message, { body: message });
  },
  preconditionRequired: () =>
    badRequest(
      'documents.precondition_required',
      'xAPI 1.0.3 requires If-Match or If-None-Match on a PUT to a profile document: send If-None-Match: * to create it.',
    ),
  notMergeable: (which: keyof typeof NOT_MERGEABLE) => badRequest('documents.not_mergeable', NOT_MERGEABLE[which]),
  invalidJson: () => badRequest('documents.invalid_json', 'The document is sent as application/json but is not valid JSON.'),
  tooDeep: (path: string, why: string) =>
    badRequest('documents.too_deep', `${path} ${why}: a merged (POST) document may not be; PUT stores any document as it is.`, {
      property: path,
    }),
  invalidParameter: (parameter: string, why: string) => badRequest('documents.invalid_parameter', `'${parameter}' ${why}.`),
  forbidden: (what: string) => new AppError('documents.forbidden', 403, `This credential may not use documents of ${what}.`),
};
