import type { FastifyPluginAsync } from 'fastify';
import type { ModuleOptions } from '../../kernel/module-options.js';
import type { ModuleDeclaration } from '../../kernel/module-declaration.js';
import { completionRoutes } from './completion.routes.js';

/** Completion records (projected from statements by the xapi module's writes). */
export const completionsModule: FastifyPluginAsync<ModuleOptions> = async (app, { sql }) => {
  await app.register(completionRoutes, { sql });
};

/** The completions module as a declared unit. */
export const completionsDeclaration: ModuleDeclaration = { name: 'completions', needs: ['actors'], fills: {}, plugin: completionsModule };
