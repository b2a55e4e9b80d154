import { Batcher } from "./batcher";

describe("Batcher", () => {
  it("collects what arrives while flushes run into the next one, at most maxBatch each", async () => {
    const flushes: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const batcher = new Batcher<number>(
      async (items) => {
        flushes.push(items);
        await gate;
      },
      { maxBatch: 3, maxConcurrent: 1 },
    );
    const first = batcher.add(0);
    await new Promise((resolve) => setImmediate(resolve));
    const rest = [1, 2, 3, 4, 5].map((n) => batcher.add(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(flushes).toEqual([[0]]);
    release();
    await Promise.all([first, ...rest]);
    expect(flushes).toEqual([[0], [1, 2, 3], [4, 5]]);
  });

  it("rejects every add of a failed flush with its error, and goes on with the next", async () => {
    let fail = true;
    const batcher = new Batcher<number>(
      async () => {
        if (fail) throw new Error("database unreachable");
      },
      { maxBatch: 10, maxConcurrent: 1 },
    );
    const failed = [batcher.add(1), batcher.add(2)];
    await expect(Promise.all(failed)).rejects.toThrow("database unreachable");
    await expect(failed[1]).rejects.toThrow("database unreachable");
    fail = false;
    await expect(batcher.add(3)).resolves.toBeUndefined();
  });

  describe("with a linger", () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it("writes the items that come within it in one flush, and the next after a linger of its own", async () => {
      const flushes: number[][] = [];
      const batcher = new Batcher<number>(async (items) => void flushes.push(items), {
        maxBatch: 10,
        maxConcurrent: 2,
        lingerMs: 10,
      });
      const first = [batcher.add(1)];
      await jest.advanceTimersByTimeAsync(6);
      first.push(batcher.add(2), batcher.add(3));
      await jest.advanceTimersByTimeAsync(3);
      expect(flushes).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      await Promise.all(first);
      expect(flushes).toEqual([[1, 2, 3]]);
      const next = batcher.add(4);
      await jest.advanceTimersByTimeAsync(9);
      expect(flushes).toEqual([[1, 2, 3]]);
      await jest.advanceTimersByTimeAsync(1);
      await next;
      expect(flushes).toEqual([[1, 2, 3], [4]]);
    });

    it("does not hold a full batch", async () => {
      const flushes: number[][] = [];
      const batcher = new Batcher<number>(async (items) => void flushes.push(items), {
        maxBatch: 3,
        maxConcurrent: 1,
        lingerMs: 1000,
      });
      await Promise.all([1, 2, 3].map((n) => batcher.add(n)));
      expect(flushes).toEqual([[1, 2, 3]]);
      expect(jest.getTimerCount()).toBe(0);
    });
  });
});
