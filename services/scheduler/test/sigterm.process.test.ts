import { readFileSync } from "node:fs";
import {
  expectCleanStop,
  launchService,
  lockTableFor,
  terminate,
  waitForLockWaiter,
  waitFor,
  type ServiceProcess,
} from "@sms/testing";
import { createHarness, type Harness } from "./harness";

const TOTAL = 6000;

let h: Harness;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(async () => {
  for (const service of processes) service.kill();
  await h?.close();
});

async function launch(): Promise<{ service: ServiceProcess; port: number }> {
  // Small batches: the backlog drains over many transactions, so the SIGTERM lands mid-way.
  const env = { SCHEDULER_BATCH_SIZE: "50", SCHEDULER_INTERVAL_MS: "100", OUTBOX_STALE_AFTER_MS: "500" };
  return launchService("scheduler", { ...h.world.env, ...env }, processes);
}

/**
 * SIGTERM to a scheduler process while a backlog of due messages is being promoted: it ends
 * the batch in progress, hands its ids to sms.dispatch, and exits 0 within 10 s; a fresh
 * process promotes the rest. "Run twice to completion" for the scheduler is a message promoted
 * twice (two 'queued' events) or handed to sms.dispatch twice (two jobs run for it).
 */
describe("a scheduler sent SIGTERM under load", () => {
  it("exits 0 within 10 s, unready first; a fresh process promotes every message; none promoted or dispatched twice", async () => {
    const ids = await h.insertScheduled(new Date(Date.now() - 1000), TOTAL);
    const queued = async () =>
      Number(
        (await h.db.pool.query<{ n: string }>("SELECT count(*) AS n FROM messages WHERE status = 'queued'"))
          .rows[0]!.n,
      );
    const first = await launch();
    await waitFor(async () => (await queued()) >= 500, { timeoutMs: 30_000, what: "500 promoted" });
    // A slow database: the promotion batch in progress waits for this lock, and the SIGTERM comes
    // once one does, so the stop waits for that batch (a stop of a few ms would be over before a
    // probe of /readyz got there).
    const lock = await lockTableFor(h.db.pool, "messages", 2500);
    await waitForLockWaiter(h.db.pool, "scheduler", 2000);
    const stopped = await terminate(first.service, first.port);
    await lock.released;
    expectCleanStop(stopped, first.service);
    const atStop = await queued();
    expect(atStop).toBeLessThan(TOTAL);

    await launch();
    await waitFor(() => new Set(h.jobs.map((job) => job.messageId)).size === TOTAL, {
      timeoutMs: 45_000,
      intervalMs: 250,
      what: "a dispatch job for every message",
    });
    expect(await queued()).toBe(TOTAL);
    const { rows } = await h.db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM message_events WHERE status = 'queued' AND message_id = ANY($1)`,
      [ids],
    );
    expect(Number(rows[0]!.n)).toBe(TOTAL);
    // Nothing left that could be handed off again (an outbox row the stopped process left is
    // relayed after OUTBOX_STALE_AFTER_MS), and every job that was handed off has run.
    await waitFor(
      async () =>
        Number(
          (await h.db.pool.query<{ n: string }>("SELECT count(*) AS n FROM dispatch_outbox")).rows[0]!.n,
        ) === 0 && (await h.isQueueIdle()),
      { what: "dispatch_outbox empty and sms.dispatch idle" },
    );
    expect(h.jobs).toHaveLength(TOTAL);
    console.log(`scheduler: SIGTERM at ${atStop}/${TOTAL} promoted, exited in ${stopped.elapsedMs} ms`);
  }, 120_000);
});

// The process runtime of every service, checked on this one.
/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

it("a service started with PROCESS_NICE runs at that CPU priority; without it, at its parent's", async () => {
  const lowered = await launchService("scheduler", { ...h.world.env, PROCESS_NICE: "10" }, processes);
  const plain = await launchService("scheduler", h.world.env, processes);
  expect(niceOf(lowered.service.child.pid!)).toBe(niceOf(process.pid) + 10);
  expect(niceOf(plain.service.child.pid!)).toBe(niceOf(process.pid));
  // Gone before any other test here counts what the schedulers of the database did.
  lowered.service.kill();
  plain.service.kill();
});
