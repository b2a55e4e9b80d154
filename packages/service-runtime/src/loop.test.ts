import { createLogger } from "@sms/logger";
import { waitFor } from "@sms/testing";
import { settlesWithin, startLoop } from "./index";

const logger = createLogger("loop-test", "error");

describe("startLoop", () => {
  it("keeps ticking after a tick fails", async () => {
    let ticks = 0;
    let errors = 0;
    const loop = startLoop({
      name: "test",
      intervalMs: 5,
      logger,
      onError: () => errors++,
      tick: async () => {
        ticks++;
        if (ticks % 2) throw new Error("database unreachable");
      },
    });
    await waitFor(() => ticks >= 4);
    await loop.stop();
    expect(errors).toBeGreaterThanOrEqual(2);
  });

  it("never runs two ticks at once, and stop waits for the tick in progress", async () => {
    let running = 0;
    let overlap = false;
    let finished = 0;
    let release: () => void = () => undefined;
    const loop = startLoop({
      name: "test",
      intervalMs: 1,
      logger,
      tick: async () => {
        running++;
        if (running > 1) overlap = true;
        await new Promise<void>((resolve) => (release = resolve));
        running--;
        finished++;
      },
    });
    await waitFor(() => running === 1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(1);
    expect(overlap).toBe(false);
  });

  it("tells the tick when the loop is stopping, so a long tick can end early", async () => {
    let sawStopping = false;
    let inside = false;
    const loop = startLoop({
      name: "test",
      intervalMs: 1,
      logger,
      tick: async (isStopping) => {
        inside = true;
        await waitFor(() => isStopping(), { intervalMs: 1 });
        sawStopping = true;
      },
    });
    await waitFor(() => inside);
    await loop.stop();
    expect(sawStopping).toBe(true);
  });

  it("waits firstTickAfterMs before the first tick, and hands each failure to onError", async () => {
    const started = Date.now();
    let firstTickAt = 0;
    const errors: unknown[] = [];
    const loop = startLoop({
      name: "test",
      intervalMs: 1000,
      firstTickAfterMs: 60,
      logger,
      onError: (error) => errors.push(error),
      tick: async () => {
        firstTickAt ||= Date.now();
        throw new Error("redis unreachable");
      },
    });
    await waitFor(() => errors.length === 1);
    await loop.stop();
    expect(firstTickAt - started).toBeGreaterThanOrEqual(55);
    expect(String(errors[0])).toContain("redis unreachable");
  });

  it("runs the next tick at once when a tick answers again, and waits intervalMs otherwise", async () => {
    const startedAt: number[] = [];
    const loop = startLoop({
      name: "test",
      intervalMs: 60_000,
      logger,
      // Three full batches, then an empty one: the loop must not wait the minute in between.
      tick: async () => (startedAt.push(Date.now()) < 4 ? "again" : undefined),
    });
    await waitFor(() => startedAt.length === 4, { timeoutMs: 5000, what: "four ticks in a row" });
    await loop.stop();
    expect(startedAt).toHaveLength(4);
  });

  it("with errorBackoffMaxMs, waits longer after each failure in a row, up to the bound, and logs the first only", async () => {
    const startedAt: number[] = [];
    const quiet = createLogger("loop-test", "error");
    const warn = jest.spyOn(quiet, "warn");
    const loop = startLoop({
      name: "test",
      intervalMs: 20,
      errorBackoffMaxMs: 160,
      logger: quiet,
      tick: async () => {
        startedAt.push(Date.now());
        throw new Error("database unreachable");
      },
    });
    await waitFor(() => startedAt.length >= 6, { timeoutMs: 10_000, what: "six failed ticks" });
    await loop.stop();
    const gaps = startedAt.slice(1).map((t, i) => t - startedAt[i]!);
    // 40, 80, 160, 160, 160 ms (timers fire late, never early).
    expect(gaps[0]).toBeGreaterThanOrEqual(39);
    expect(gaps[1]).toBeGreaterThanOrEqual(79);
    expect(gaps[2]).toBeGreaterThanOrEqual(159);
    expect(gaps[3]).toBeGreaterThanOrEqual(159);
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("a stop before the first tick ends the loop without ticking", async () => {
    let ticks = 0;
    const loop = startLoop({
      name: "test",
      intervalMs: 1,
      firstTickAfterMs: 30,
      logger,
      tick: async () => void ticks++,
    });
    await loop.stop();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ticks).toBe(0);
  });
});

describe("settlesWithin", () => {
  it("is true for a promise that settles in time, rejected or not", async () => {
    expect(await settlesWithin(Promise.resolve(1), 1000)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error("x")), 1000)).toBe(true);
  });

  it("is false for one that does not", async () => {
    expect(await settlesWithin(new Promise(() => undefined), 10)).toBe(false);
  });
});
