import { runService } from "./run-service";

// runService owns the process's signals and exit: the test drives them through process.emit
// and records process.exit instead of exiting Jest's worker.
describe("runService", () => {
  let exits: number[];
  let listeners: { SIGTERM: NodeJS.SignalsListener[]; SIGINT: NodeJS.SignalsListener[] };

  beforeEach(() => {
    exits = [];
    listeners = { SIGTERM: process.listeners("SIGTERM"), SIGINT: process.listeners("SIGINT") };
    jest.spyOn(process, "exit").mockImplementation(((code?: number) => {
      exits.push(code ?? 0);
    }) as never);
  });

  afterEach(() => {
    for (const signal of ["SIGTERM", "SIGINT"] as const)
      for (const listener of process.listeners(signal))
        if (!listeners[signal].includes(listener)) process.off(signal, listener);
    jest.restoreAllMocks();
  });

  const flush = () => new Promise((resolve) => setTimeout(resolve, 20));

  function service(
    stop: () => Promise<void>,
    options: { startMs?: number; shutdownTimeoutMs?: number } = {},
  ) {
    const calls = { started: 0, stopped: 0 };
    runService({
      name: "test",
      loadConfig: () => ({ LOG_LEVEL: "error" }),
      start: async () => {
        await new Promise((resolve) => setTimeout(resolve, options.startMs ?? 0));
        calls.started++;
        return {
          stop: () => {
            calls.stopped++;
            return stop();
          },
        };
      },
      ...(options.shutdownTimeoutMs ? { shutdownTimeoutMs: options.shutdownTimeoutMs } : {}),
    });
    return calls;
  }

  it("stops once on SIGTERM and exits 0, ignoring a repeated signal while it stops", async () => {
    let finish: () => void = () => undefined;
    const calls = service(() => new Promise<void>((resolve) => (finish = resolve)));
    await flush();
    process.emit("SIGTERM");
    // Still listening: with no listener left, a real second signal would kill the process mid-stop.
    expect(process.listenerCount("SIGTERM")).toBe(listeners.SIGTERM.length + 1);
    expect(process.listenerCount("SIGINT")).toBe(listeners.SIGINT.length + 1);
    process.emit("SIGINT");
    process.emit("SIGTERM");
    await flush();
    expect(calls.stopped).toBe(1);
    expect(exits).toEqual([]);
    finish();
    await flush();
    expect(exits).toEqual([0]);
  });

  it("exits 1 when the stop fails", async () => {
    service(() => Promise.reject(new Error("pool would not close")));
    await flush();
    process.emit("SIGTERM");
    await flush();
    expect(exits).toEqual([1]);
  });

  it("exits 1 at the backstop when the stop hangs", async () => {
    service(() => new Promise<void>(() => undefined), { shutdownTimeoutMs: 50 });
    await flush();
    process.emit("SIGTERM");
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(exits).toEqual([1]);
  });

  it("a signal during start-up stops the service as soon as it has started", async () => {
    const calls = service(() => Promise.resolve(), { startMs: 50 });
    await flush();
    process.emit("SIGTERM");
    expect(calls.started).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls).toEqual({ started: 1, stopped: 1 });
    expect(exits).toEqual([0]);
  });
});
