// Runs the command line from source, so tests need no build: `node --import tsx test/support/run-cli.ts …`.
import { runCli } from '../../src/cli.js';

const code = await runCli(process.argv.slice(2));
if (process.argv[2] !== 'serve') process.exit(code);
