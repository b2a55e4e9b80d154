// What bench:e2e's two sides share: the run's settings, the phase each side reports, and the
// waits and readings both make.
import type { ReceiverProcess, ReceiverStats } from "./e2e-receiver";
import type { Simulator } from "./platform";

export const TOTAL = Number(process.env.BENCH_E2E_MESSAGES ?? 20_000);
export const WARMUP = Number(process.env.BENCH_E2E_WARMUP ?? 5_000);
export const CONNECTIONS = 50;
/** Ports BASE+1 … BASE+15 (BENCH_PORT, default 4100): two runs on one machine must not collide. */
export const BASE = Number(process.env.BENCH_PORT ?? 4100);
/** Each phase stops waiting after this long from its first request, whatever it reached. */
export const TIMEOUT_MS = Number(process.env.BENCH_E2E_TIMEOUT_S ?? 300) * 1000;
export const BENCH_OWN = new Set([
  "load generator (autocannon, the bench process)",
  "receiver (its own process)",
]);

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const rate = (count: number, seconds: number) => (count / seconds).toFixed(0);

export interface Phase {
  name: string;
  accepted: number;
  endToEndSeconds: number;
  cpuTotal: number;
  acceptRate: number;
}

export /** Waits until `done(stats)` or the deadline; the receiver's last stats either way. */
async function waitForReceiver(
  receiver: ReceiverProcess,
  deadline: number,
  done: (stats: ReceiverStats) => boolean,
): Promise<ReceiverStats> {
  for (;;) {
    const stats = await receiver.stats();
    if (done(stats) || Date.now() > deadline) return stats;
    await sleep(250);
  }
}

export async function simulatorAccepted(simulator: Simulator): Promise<number> {
  const stats = (await (await fetch(`http://127.0.0.1:${simulator.httpPort}/stats`)).json()) as {
    submits: { accepted: number };
  };
  return stats.submits.accepted;
}

export const ownCpuSeconds = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};
