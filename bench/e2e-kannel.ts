// bench:e2e's peer: Kannel (bearerbox and smsbox) on the same simulator, the same count of HTTP
// sendsms after the same warm-up, each delivered callback to the same receiver.
import { execFileSync } from "node:child_process";
import { describeCpu, startCpuMeter } from "./cpu-meter";
import type { ReceiverProcess } from "./e2e-receiver";
import {
  BASE,
  BENCH_OWN,
  CONNECTIONS,
  TIMEOUT_MS,
  TOTAL,
  WARMUP,
  ownCpuSeconds,
  rate,
  simulatorAccepted,
  waitForReceiver,
  type Phase,
} from "./e2e-phase";
import { ensureKannel, startKannel } from "./kannel";
import { fixedCountLoad, machineLoad } from "./load-generator";
import type { Simulator } from "./platform";

export async function runKannel(simulator: Simulator, receiver: ReceiverProcess): Promise<Phase | undefined> {
  const installed = ensureKannel();
  if (!installed.ok) {
    console.log(`\nKannel: skipped — ${installed.why}`);
    return undefined;
  }
  let version = "";
  try {
    version = execFileSync("dpkg-query", ["-W", "-f=${Version}", "kannel"], { stdio: "pipe" }).toString();
  } catch {
    /* not a Debian system: no version to print */
  }
  const window = 100;
  const kannel = await startKannel({
    smscPort: simulator.smppPort,
    ports: { admin: BASE + 13, box: BASE + 14, sendsms: BASE + 15 },
    window,
  });
  const sendLoad = (amount: number) =>
    fixedCountLoad({
      url: kannel.sendsmsUrl("14155550100", receiver.dlrUrl),
      method: "GET",
      connections: CONNECTIONS,
      amount,
    });
  try {
    receiver.reset();
    if (WARMUP > 0) {
      const warm = await sendLoad(WARMUP);
      await waitForReceiver(receiver, Date.now() + TIMEOUT_MS, (s) => s.dlr.deliveredIds >= warm.accepted);
      receiver.reset();
    }
    const carrierBefore = await simulatorAccepted(simulator);
    const meter = await startCpuMeter({
      processes: [
        ["bearerbox", kannel.bearerbox.pid!],
        ["smsbox", kannel.smsbox.pid!],
        ["carrier-simulator", simulator.child.pid!],
        ["load generator (autocannon, the bench process)", ownCpuSeconds],
        ["receiver (its own process)", receiver.pid],
      ],
    });
    const loadBefore = machineLoad();
    const started = Date.now();
    const load = await sendLoad(TOTAL);
    const stats = await waitForReceiver(
      receiver,
      started + TIMEOUT_MS,
      (s) => s.dlr.deliveredIds >= load.accepted,
    );
    const cpu = await meter.stop();
    const carrierSubmits = (await simulatorAccepted(simulator)) - carrierBefore;
    const endToEnd = (stats.dlr.lastDeliveredAt - started) / 1000;
    const done = stats.dlr.deliveredIds >= load.accepted;
    console.log(
      `\nKannel ${version}: HTTP sendsms → bearerbox → SMPP 3.4 transceiver (window ${window}) to the same simulator → DELIVRD → dlr-url (dlr-mask 1)`,
    );
    if (WARMUP > 0)
      console.log(`  after ${WARMUP} messages through to their callbacks, not measured (BENCH_E2E_WARMUP)`);
    console.log(
      `  accepted ${load.accepted}/${TOTAL} in ${load.seconds.toFixed(1)} s → ${rate(load.accepted, load.seconds)}/s; ` +
        `latency p50 ${load.latencyMs.p50} ms, p99 ${load.latencyMs.p99} ms, max ${load.latencyMs.max} ms; ` +
        `non-2xx ${load.nonSuccess}, errors ${load.errors} (${load.generator}, ${CONNECTIONS} connections)`,
    );
    console.log(
      done
        ? `  end to end: last delivered callback ${endToEnd.toFixed(1)} s after the first request → ${rate(load.accepted, endToEnd)} messages/s`
        : `  end to end: TIMED OUT after ${TIMEOUT_MS / 1000} s with ${stats.dlr.deliveredIds}/${load.accepted} delivered callbacks`,
    );
    console.log(
      `  integrity: lost ${load.accepted - stats.dlr.deliveredIds}, callbacks repeated ${stats.dlr.repeats}, ` +
        `carrier got ${carrierSubmits - load.accepted} submits more than accepted`,
    );
    const { lines, total } = describeCpu(cpu, load.accepted, BENCH_OWN);
    console.log("  CPU per message, first request → last callback:");
    for (const line of lines) console.log(`    ${line}`);
    console.log(`    ${"all-in (every line counted)".padEnd(66)} ${total.toFixed(0).padStart(6)} µs`);
    console.log(`  ${loadBefore} before, ${machineLoad()} after`);
    return {
      name: "Kannel",
      accepted: load.accepted,
      endToEndSeconds: done ? endToEnd : NaN,
      cpuTotal: total,
      acceptRate: load.accepted / load.seconds,
    };
  } finally {
    await kannel.stop();
  }
}
