// Runs the built command line (dist/, which `npm test` brings up to date first) as run-cli.ts runs
// the source: a command takes about a second less without compiling the sources on the way.
const { runCli } = await import(new URL('../../dist/cli/cli.js', import.meta.url).href);

const code = await runCli(process.argv.slice(2));
// `serve` keeps running on its open server; like bin/learnbase, it only sets the code it exits with.
if (process.argv[2] !== 'serve') process.exit(code);
else process.exitCode = code;
