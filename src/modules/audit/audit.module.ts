import type { FastifyPluginAsync } from 'fastify';
import type { ModuleContext, ModuleDeclaration } from '../../kernel/module-declaration.js';
import { auditRoutes } from './audit.routes.js';

/** The audit log's routes. */
export const auditModule: FastifyPluginAsync<ModuleContext> = async (app, { sql, ports }) => {
  // Which people a principal may read: the actors module's rule (audit sits below actors), through its port.
  await app.register(auditRoutes, { sql, people: ports.personReach });
};

/** The audit module as a declared unit: it reads people through the personReach port, which actors fills. */
export const auditDeclaration: ModuleDeclaration = { name: 'audit', needs: [], fills: {}, plugin: auditModule };
