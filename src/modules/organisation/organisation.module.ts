import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { ModuleDeclaration } from '../../kernel/module-declaration.js';
import { organisationRoutes } from './organisation.routes.js';

/** The organisation structure and the job architecture, as imported (their imports are the imports module's). */
export const organisationModule: FastifyPluginAsync<ModuleOptions> = async (app, { sql }) => {
  await app.register(organisationRoutes, { sql });
};

/** The organisation module as a declared unit. */
export const organisationDeclaration: ModuleDeclaration = { name: 'organisation', needs: [], fills: {}, plugin: organisationModule };
