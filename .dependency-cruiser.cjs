/**
 * The module layout of docs/architecture.md, checked on every `npm test` (npm run lint): a
 * back-arrow between modules, a cycle, or an import of another module's internals fails the run.
 * MODULES is the drawing's order, bottom first: a module may import the modules before it.
 */
const MODULES = [
  'tenancy',
  'audit',
  'organisation',
  'actors',
  'auth',
  'activities',
  'completions',
  'xapi',
  'notifications',
  'imports',
  'launch',
  'learning',
  'identity',
];

const modulePath = (name) => `^src/modules/${name}/`;

/** One rule per module: it imports none of the modules above it. */
const upwardArrows = MODULES.slice(0, -1).map((name, index) => ({
  name: `no-upward-arrow-from-${name}`,
  comment: `${name} sits below ${MODULES.slice(index + 1).join(', ')} (docs/architecture.md): it may not import them.`,
  severity: 'error',
  from: { path: modulePath(name), pathNot: '\\.test\\.ts$' },
  to: { path: MODULES.slice(index + 1).map(modulePath) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment:
        'Files import one another in one direction: a cycle is a knot the next reader has to untie. A repository naming its service’s types (`import type`, erased at build) is no knot.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'known-modules-only',
      comment: 'A new module is added to MODULES here and to docs/architecture.md in the same commit.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: MODULES.map(modulePath) },
    },
    ...upwardArrows,
    {
      name: 'modules-meet-at-their-face',
      comment:
        'A module imports another through its face, src/modules/<m>/index.ts, only (docs/architecture.md, "Modules"): what the face does not export is the module’s own.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/([^/]+)/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'entries-meet-modules-at-their-face',
      comment:
        'The server and the command line use a module through its face too (docs/architecture.md, "Modules"); only the composition root (server/composition.ts) imports the declarations, `<m>.module.ts`.',
      severity: 'error',
      from: { path: '^src/(server|cli)/', pathNot: ['^src/server/composition\\.ts$', '\\.test\\.ts$'] },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'only-the-root-composes',
      comment: 'The composition root imports each module’s declaration, and through the faces nothing else of a module.',
      severity: 'error',
      from: { path: '^src/server/composition\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: ['^src/modules/([^/]+)/\\1\\.module\\.ts$', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'no-import-of-own-face',
      comment: 'A module’s files import one another directly: its face is for the modules above it, and through it a file would import itself.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/$1/index\\.ts$' },
    },
    {
      name: 'platform-knows-no-learning',
      comment:
        'platform/ knows nothing of learning or xAPI: it imports neither the kernel nor a module nor an entry, nor the configuration (config.ts reads the settings with platform/’s help and hands each part what it takes).',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: ['^src/(kernel|modules|server|cli)/', '^src/config\\.ts$'] },
    },
    {
      name: 'kernel-knows-no-module',
      comment: 'The kernel is what every module shares and no module owns: it imports platform/ and the configuration’s types only.',
      severity: 'error',
      from: { path: '^src/kernel/' },
      to: { path: '^src/(modules|server|cli)/' },
    },
    {
      name: 'modules-know-no-entry',
      comment: 'The server and the command line assemble modules; modules never import them.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/(server|cli)/' },
    },
    {
      name: 'server-knows-no-cli',
      severity: 'error',
      from: { path: '^src/server/' },
      to: { path: '^src/cli/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.test\\.ts$' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
  },
};
