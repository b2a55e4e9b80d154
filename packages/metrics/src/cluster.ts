import cluster from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

/*
 * Node's cluster mode (the gateway's GATEWAY_WORKERS) shares one port among worker
 * processes, so a scrape lands on any one of them: its counters alone would jump
 * between workers' values. The worker that takes the scrape asks the primary, which
 * collects every worker's registry over IPC (prom-client's AggregatorRegistry) and
 * answers with the sums.
 */
const ASK = "sms-metrics:aggregate";
const ANSWER = "sms-metrics:aggregated";
const ANSWER_TIMEOUT_MS = 7000; // prom-client gives each worker 5 s

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  body?: string;
  error?: string;
}

/** In the cluster's primary: answers the workers' requests for the whole cluster's metrics. */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: Partial<Ask>) => {
    if (message?.type !== ASK || typeof message.id !== "number") return;
    const { id } = message;
    aggregator.clusterMetrics().then(
      (body) => worker.send({ type: ANSWER, id, body } satisfies Answer),
      (error: unknown) => worker.send({ type: ANSWER, id, error: String(error) } satisfies Answer),
    );
  });
}

let nextId = 0;
const pending = new Map<number, (answer: Answer) => void>();
let listening = false;

/**
 * In a cluster worker: offers `registry` to the primary's aggregation and returns a
 * renderer that answers with every worker's metrics summed.
 */
export function joinClusterMetrics(registry: Registry): () => Promise<string> {
  // Constructing one installs prom-client's worker-side listener.
  new AggregatorRegistry();
  AggregatorRegistry.setRegistries([registry]);
  if (!listening) {
    listening = true;
    process.on("message", (message: Partial<Answer>) => {
      if (message?.type === ANSWER && typeof message.id === "number")
        pending.get(message.id)?.(message as Answer);
    });
  }
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error("the cluster primary did not answer with the metrics"));
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, (answer) => {
        clearTimeout(timer);
        pending.delete(id);
        if (answer.body !== undefined) resolve(answer.body);
        else reject(new Error(answer.error ?? "no metrics"));
      });
      process.send!({ type: ASK, id } satisfies Ask);
    });
}

/** True in a worker forked by node:cluster (where a scrape must be answered for the whole cluster). */
export function isClusterWorker(): boolean {
  return cluster.isWorker;
}
