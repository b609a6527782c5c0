import { AppError, badRequest } from '../../../../platform/http/app-error.js';

/** The errors of statement attachments and signatures, `statements.reason` like the resource's others. */
export const AttachmentErrors = {
  invalidMultipart: (why: string) => badRequest('statements.invalid_multipart', `The multipart/mixed request is malformed: ${why}.`),
  invalidPart: (index: number, why: string) =>
    badRequest('statements.invalid_attachment_part', `Part ${index + 1} of the multipart/mixed request ${why}.`, { part: index + 1 }),
  hashMismatch: (index: number, sha2: string) =>
    badRequest(
      'statements.attachment_hash_mismatch',
      `Part ${index + 1} says X-Experience-API-Hash ${sha2}, but its data hashes to something else.`,
      { part: index + 1, sha2 },
    ),
  unusedPart: (index: number, sha2: string) =>
    badRequest(
      'statements.attachment_unused',
      `Part ${index + 1} (X-Experience-API-Hash ${sha2}) is the data of no attachment of the statements sent; every part after the first must be one.`,
      { part: index + 1, sha2 },
    ),
  missingData: (path: string, sha2: string) =>
    badRequest(
      'statements.attachment_missing',
      `${path}.fileUrl is required when no part of a multipart/mixed request carries the attachment's data (X-Experience-API-Hash ${sha2}).`,
      { property: `${path}.fileUrl`, sha2 },
    ),
  tooLarge: (limit: number) =>
    new AppError(
      'statements.attachments_too_large',
      413,
      `The request is larger than the ${limit} bytes this server accepts for statements with attachments.`,
      {
        details: { limitBytes: limit },
      },
    ),
  invalidSignature: (path: string, why: string) =>
    badRequest('statements.invalid_signature', `${path} is not a valid statement signature: ${why}.`, { property: path }),
};
