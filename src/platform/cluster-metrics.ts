import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue, type Registry } from 'prom-client';

/**
 * `/metrics` under `serve --workers N`: whichever worker a scrape reaches, it answers for them all.
 * The worker asks the primary; the primary asks every worker that is listening for its figures over
 * the cluster's IPC channel, merges them (prom-client's `AggregatorRegistry.aggregate`) and sends
 * the text back. Each worker's series keep their `worker` label, so nothing is summed away: a scrape
 * shows every worker side by side.
 *
 * Only workers that listen are asked (one still starting has nothing to tell and could not answer),
 * and a worker that does not answer within COLLECT_TIMEOUT_MS (stuck, or dying) is left out of that
 * scrape rather than failing it.
 */

const SCRAPE = 'learnbase:metrics-scrape';
const SCRAPED = 'learnbase:metrics-scraped';
const COLLECT = 'learnbase:metrics-collect';
const COLLECTED = 'learnbase:metrics-collected';
const COLLECT_TIMEOUT_MS = 2_000;
/** Longer than the primary's wait for the workers, so its answer (partial or not) arrives first. */
const SCRAPE_TIMEOUT_MS = COLLECT_TIMEOUT_MS + 2_000;

type Figures = MetricObjectWithValues<MetricValue<string>>[][];

interface Message {
  type?: string;
  id?: string;
  text?: string;
  error?: string;
  figures?: Figures;
}

/** In the primary: answers the workers' scrapes with every listening worker's figures. */
export function answerMetricsRequests(): void {
  const listening = new Set<Worker>();
  cluster.on('listening', (worker) => listening.add(worker));
  cluster.on('exit', (worker) => listening.delete(worker));
  cluster.on('message', (worker, message: Message) => {
    if (message?.type !== SCRAPE) return;
    collect([...listening]).then(
      (text) => worker.isConnected() && worker.send({ type: SCRAPED, id: message.id, text }),
      (error: Error) => worker.isConnected() && worker.send({ type: SCRAPED, id: message.id, error: error.message }),
    );
  });
}

async function collect(workers: Worker[]): Promise<string> {
  const id = randomUUID();
  const answers = await Promise.all(workers.filter((worker) => worker.isConnected()).map((worker) => figuresOf(worker, id)));
  return AggregatorRegistry.aggregate(answers.flat()).metrics();
}

function figuresOf(worker: Worker, id: string): Promise<Figures> {
  return new Promise((resolve) => {
    const done = (figures: Figures) => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      resolve(figures);
    };
    const onMessage = (message: Message) => {
      if (message?.type === COLLECTED && message.id === id) done(message.figures ?? []);
    };
    const onExit = () => done([]);
    const timer = setTimeout(() => done([]), COLLECT_TIMEOUT_MS);
    worker.on('message', onMessage);
    worker.once('exit', onExit);
    worker.send({ type: COLLECT, id });
  });
}

let shared: Registry[] = [];
let answering = false;

/** In a worker: lets the primary collect these registries (the process's and the app's). */
export function shareWithPrimary(registries: Registry[]): void {
  shared = registries;
  if (answering) return;
  answering = true;
  process.on('message', (message: Message) => {
    if (message?.type !== COLLECT) return;
    Promise.all(shared.map((registry) => registry.getMetricsAsJSON())).then(
      (figures) => process.send?.({ type: COLLECTED, id: message.id, figures }),
      () => process.send?.({ type: COLLECTED, id: message.id, figures: [] }),
    );
  });
}

/** In a worker: every worker's metrics in the text format, from the primary. */
export function clusterMetricsText(): Promise<string> {
  const id = randomUUID();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', onMessage);
      reject(new Error("the primary process did not answer with the workers' metrics in time"));
    }, SCRAPE_TIMEOUT_MS);
    const onMessage = (message: Message) => {
      if (message?.type !== SCRAPED || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', onMessage);
      if (message.error !== undefined) reject(new Error(message.error));
      else resolve(message.text ?? '');
    };
    process.on('message', onMessage);
    process.send!({ type: SCRAPE, id });
  });
}
