/**
 * Summarises a V8 CPU profile (from `npm run bench -- --profile DIR`, which starts the server
 * with `node --cpu-prof`): where the server's main thread spent its time, by package and by function.
 *
 *   node --import tsx bench/profile-summary.ts DIR/CPU.*.cpuprofile [--top 30]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' } },
});
if (positionals.length !== 1) {
  process.stderr.write('Usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [--top 30]\n');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0] as string, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfMicros = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const total = [...selfMicros.values()].reduce((sum, value) => sum + value, 0);

/** Which part of the stack a frame belongs to: a package, learnbase's own code, Node's internals or V8. */
function area(node: ProfileNode): string {
  const { url, functionName } = node.callFrame;
  if (url === '') return `(${functionName || 'native'})`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1] as string;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  const own = /\/(dist|src)\/(.+?)\.js$/.exec(url);
  if (own) return `learnbase ${own[2]}`;
  return url;
}

function table(title: string, totals: Map<string, number>): void {
  const busy = total - (totals.get('(idle)') ?? 0);
  process.stdout.write(`\n${title} (ms of self time; % of all samples; % of non-idle)\n`);
  const rows = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, micros] of rows) {
    const share = ((micros / total) * 100).toFixed(1).padStart(5);
    const busyShare = name === '(idle)' ? '    -' : ((micros / busy) * 100).toFixed(1).padStart(5);
    process.stdout.write(`${(micros / 1000).toFixed(0).padStart(8)}  ${share}%  ${busyShare}%  ${name}\n`);
  }
}

const byArea = new Map<string, number>();
const byFunction = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = byId.get(id);
  if (!node) continue;
  const where = area(node);
  byArea.set(where, (byArea.get(where) ?? 0) + micros);
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(dist|src)\//, '$1/');
  const key = url === '' ? `(${functionName || 'native'})` : `${functionName || '(anonymous)'}  ${file}:${lineNumber + 1}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}

process.stdout.write(`profile: ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s, ${profile.samples.length} samples\n`);
table('By area', byArea);
table('By function', byFunction);
