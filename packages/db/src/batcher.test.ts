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
});
