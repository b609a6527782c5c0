// Runs the command line from source, so tests need no build: `node --import tsx test/support/run-cli.ts …`.
import { runCli } from '../../src/cli/cli.js';

const code = await runCli(process.argv.slice(2));
// `serve` keeps running on its open server; like bin/learnbase, it only sets the code it exits with.
if (process.argv[2] !== 'serve') process.exit(code);
else process.exitCode = code;
