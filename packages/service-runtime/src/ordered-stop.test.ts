import { createLogger } from "@sms/logger";
import { orderedStop } from "./index";

const logger = createLogger("ordered-stop-test", "error");

describe("orderedStop", () => {
  it("runs the steps in order, each after the one before has finished", async () => {
    const done: string[] = [];
    const stop = orderedStop({
      timeoutMs: 1000,
      logger,
      steps: [
        {
          name: "worker",
          run: () => new Promise((resolve) => setTimeout(() => resolve(done.push("worker")), 20)),
        },
        { name: "redis", run: () => done.push("redis") },
        { name: "database", run: async () => done.push("database") },
      ],
    });
    await stop();
    expect(done).toEqual(["worker", "redis", "database"]);
  });

  it("gives every step what is left of one bound, so a step that overruns shortens the next", async () => {
    const seen: Array<{ left: number; inTime: boolean }> = [];
    const stop = orderedStop({
      timeoutMs: 100,
      logger,
      steps: [
        {
          name: "hangs",
          run: async ({ within, left }) =>
            seen.push({ inTime: await within(new Promise(() => undefined)), left: left() }),
        },
        {
          name: "after",
          run: async ({ within, left }) =>
            seen.push({ inTime: await within(Promise.resolve()), left: left() }),
        },
      ],
    });
    await stop();
    expect(seen[0]).toEqual({ inTime: false, left: 0 });
    expect(seen[1]!.left).toBe(0);
  });

  it("runs once however often it is called, and a failing step ends the stop with its error", async () => {
    let runs = 0;
    const stop = orderedStop({
      timeoutMs: 1000,
      logger,
      steps: [
        { name: "counted", run: () => runs++ },
        {
          name: "fails",
          run: () => {
            throw new Error("pool refused to end");
          },
        },
        { name: "never", run: () => runs++ },
      ],
    });
    const first = stop();
    expect(stop()).toBe(first);
    await expect(first).rejects.toThrow("pool refused to end");
    expect(runs).toBe(1);
  });
});
