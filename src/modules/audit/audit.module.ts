import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { PersonReach } from '../../kernel/person-reach.js';
import { auditRoutes } from './audit.routes.js';

export interface AuditModuleOptions extends ModuleOptions {
  /** Which people a principal may read: the actors module's rule, handed in by the entry (audit sits below actors). */
  people: PersonReach;
}

/** The audit log's routes. */
export const auditModule: FastifyPluginAsync<AuditModuleOptions> = async (app, { sql, people }) => {
  await app.register(auditRoutes, { sql, people });
};
