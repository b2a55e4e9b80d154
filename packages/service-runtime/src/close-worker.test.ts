import { closeWorkerWithin } from "./close-worker";

function fakeWorker(jobsEndAfterMs: number) {
  const calls: string[] = [];
  return {
    calls,
    pause() {
      calls.push("pause");
      return new Promise<void>((resolve) => setTimeout(resolve, jobsEndAfterMs).unref());
    },
    close(force?: boolean) {
      calls.push(force ? "close(force)" : "close");
      return Promise.resolve();
    },
  };
}

// The BullMQ side (pause waits for running jobs, a forced close leaves them to the stalled
// check) is proven with real workers by the services' SIGTERM tests; this is the timing.
describe("closeWorkerWithin", () => {
  it("waits for the running jobs when they end within the bound, then closes", async () => {
    const worker = fakeWorker(10);
    expect(await closeWorkerWithin(worker, 1000)).toBe(true);
    expect(worker.calls).toEqual(["pause", "close"]);
  });

  it("closes without waiting at the bound, handing the jobs back", async () => {
    const worker = fakeWorker(60_000);
    const started = Date.now();
    expect(await closeWorkerWithin(worker, 50)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(worker.calls).toEqual(["pause", "close(force)"]);
  });
});
