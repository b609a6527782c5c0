import { Type } from 'typebox';

/** The interface's APIError (section 7): every `/api/` error answers this shape. */
export const ApiError = Type.Object(
  {
    code: Type.String({ description: 'Stable machine-readable code, `module.reason`.', examples: ['tenant.not_found'] }),
    message: Type.String({ description: 'What went wrong, for a person.' }),
    details: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ApiError', description: 'An error (interface section 7, APIError).' },
);
