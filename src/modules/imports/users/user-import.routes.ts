import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { ApiError, describedOnly } from '../../../platform/http/common-schemas.js';
import { tenantWidePrincipalOf } from '../../../kernel/principal.js';
import { badRequest } from '../../../platform/http/app-error.js';
import { importUsers, parseUserImportBody } from './user-import.service.js';
import { charsetOf, parseUsersCsv } from './users-csv.js';
import type { PeopleChanges } from '../../../kernel/people-changes.port.js';
import { sourceOfHeader } from '../../audit/index.js';
import { importModeOf, isUserImportMode, type UserImportMode } from './user-sync-rules.js';
import { verifyOfQuery } from '../import-query-rules.js';
import type { UserSyncContext } from './user-sync.service.js';

export interface UsersImportRoutesOptions {
  sql: SqlClient;
  /** Largest import body accepted, in bytes (LEARNBASE_IMPORT_LIMIT_BYTES): 413 above it. */
  importLimitBytes: number;
  /** For the default accountHomePage, the tenant's own address. */
  baseDomain: string;
  /** Told of the users an import wrote, in its transaction. */
  peopleChanges: PeopleChanges;
  /** What `"mode": "sync"` needs but the request's source: the largest share it may deactivate, auth's credentials. */
  sync: Omit<UserSyncContext, 'source'>;
}

const ImportMessage = Type.Object({
  type: Type.String({ description: 'Stable machine-readable type (docs/imports.md lists them).', examples: ['duplicate_unique_value'] }),
  message: Type.String(),
  value: Type.String({ description: 'The offending value, as a string.' }),
  row: Type.Integer({ description: '1-based position in `users`.' }),
});

const ImportSummary = Type.Object(
  {
    rows: Type.Integer(),
    new: Type.Integer(),
    existing: Type.Integer(),
    deactivated: Type.Optional(
      Type.Integer({ description: '`"mode": "sync"` only: the people the sync deactivated (with `verify`, would deactivate).' }),
    ),
    skipped: Type.Integer(),
    errorCount: Type.Integer(),
    warningCount: Type.Integer(),
    errors: Type.Array(ImportMessage),
    warnings: Type.Array(ImportMessage),
  },
  { description: 'The user import summary (interface 2.2).' },
);

const ImportBody = Type.Object(
  {
    users: Type.Array(
      Type.Object({
        name: Type.String({ description: 'Display name.' }),
        attributes: Type.Record(Type.String(), Type.String(), { description: 'Attribute names to string values.' }),
      }),
    ),
    verify: Type.Optional(Type.Boolean({ description: 'true: check and answer the summary, import nothing.' })),
    mode: Type.Optional(
      Type.Union([Type.Literal('merge'), Type.Literal('sync')], {
        description:
          '`merge` (default): people left out stay as they are. `sync`: the active people left out are deactivated (docs/identity.md); ' +
          'refused whole when a row has an error or when more than LEARNBASE_IMPORT_SYNC_MAX_SHARE of the people would go.',
      }),
    ),
  },
  { description: 'Rows are checked one by one (errors skip a row, see the summary); a body bad as a whole is a 400.' },
);

/** `?mode=merge|sync`, the way a CSV body asks for a sync. */
function modeOfQuery(query: unknown): UserImportMode | undefined {
  const sent = (query as Record<string, unknown> | undefined)?.mode;
  if (sent === undefined) return undefined;
  if (isUserImportMode(sent)) return sent;
  throw badRequest('imports.invalid_body', 'The query parameter "mode" must be merge or sync.', { field: 'mode' });
}

/** `POST /api/import/users` (interface 4.1): a JSON body, or the same users as CSV (users-csv.ts). */
export const usersImportRoutes: FastifyPluginAsyncTypebox<UsersImportRoutesOptions> = async (
  app,
  { sql, importLimitBytes, baseDomain, peopleChanges, sync },
) => {
  // Encapsulated in this plugin: `text/csv` means users only here.
  app.addContentTypeParser('text/csv', { parseAs: 'buffer', bodyLimit: importLimitBytes }, (request, body, done) => {
    try {
      done(null, { users: parseUsersCsv(body as Buffer, charsetOf(request.headers['content-type'])) });
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  app.post(
    '/api/import/users',
    {
      bodyLimit: importLimitBytes,
      config: { admission: 'imports' },
      // The rules check the body row by row: a bad row is a message in the summary, not a 400.
      validatorCompiler: describedOnly,
      schema: {
        tags: ['imports'],
        operationId: 'POST:import.users',
        summary: 'Imports users (JSON, or CSV with Content-Type: text/csv), or checks them with verify: true',
        querystring: Type.Object({
          verify: Type.Optional(Type.Boolean({ description: "The same as the body's `verify`: for a CSV body." })),
          mode: Type.Optional(
            Type.Union([Type.Literal('merge'), Type.Literal('sync')], { description: "The same as the body's `mode`: for a CSV body." }),
          ),
        }),
        body: ImportBody,
        response: {
          200: ImportSummary,
          400: ApiError,
          401: ApiError,
          403: ApiError,
          404: ApiError,
          409: ApiError,
          413: ApiError,
          415: ApiError,
        },
      },
    },
    async (request) => {
      const principal = tenantWidePrincipalOf(request);
      const parsed = parseUserImportBody(request.body);
      const verify = verifyOfQuery(request.query);
      const mode = importModeOf(modeOfQuery(request.query), parsed.mode);
      // The audit entries of a sync's deactivations carry the request's svc-account-source, as PUT /api/actors/agents' do.
      const source = mode === 'sync' ? sourceOfHeader(request.headers['svc-account-source']) : undefined;
      return importUsers(
        sql,
        principal,
        { ...parsed, verify: parsed.verify || verify === true, mode },
        { baseDomain, peopleChanges, sync: { ...sync, source } },
      );
    },
  );
};
