/**
 * The V8 flag every test process and every command a test starts runs with (run-tests.ts passes it
 * to node --test, which passes it on to each file's process; cli.ts to each command). PGlite is
 * 9 MB of WebAssembly, and V8 recompiles the functions that run hot with its optimising compiler in
 * the background: in a process that lives seconds, as tests and commands do, that compiling cost
 * about a fifth of the CPU and was never paid back. `--liftoff-only` keeps V8's baseline compiler.
 * It changes how fast the code runs, never what it does.
 */
export const BASELINE_WASM_ONLY = '--liftoff-only';
