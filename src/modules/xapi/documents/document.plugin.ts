import type { FastifyPluginAsync } from 'fastify';
import type { SqlClient } from '../../../platform/database/sql-client.js';
import { activityProfileResource } from '../activity-profile/activity-profile.resource.js';
import { agentProfileResource } from '../agent-profile/agent-profile.resource.js';
import { stateResource } from '../state/state.resource.js';
import { registerDocumentRoutes } from './document.routes.js';
import { documentMergeWriter, newDocumentWriter } from './document.service.js';

export interface DocumentsPluginOptions {
  sql: SqlClient;
  /** Largest document accepted, in bytes: 413 above it. */
  documentLimitBytes: number;
}

/**
 * The three xAPI document resources. Encapsulated: documents are bytes of any media type, so
 * this context replaces Fastify's body parsers with one that hands every body over as a Buffer.
 */
export const documentsPlugin: FastifyPluginAsync<DocumentsPluginOptions> = async (app, { sql, documentLimitBytes }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: documentLimitBytes }, (_request, body, done) => done(null, body));
  const writers = { newDocuments: newDocumentWriter(sql), merges: documentMergeWriter(sql) };
  for (const resource of [stateResource, activityProfileResource, agentProfileResource]) {
    registerDocumentRoutes(app, sql, writers, resource);
  }
};
