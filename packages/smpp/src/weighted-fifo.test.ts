import fc from "fast-check";
import { WeightedFifo } from "./weighted-fifo";
import { RequestWindow } from "./window";

describe("WeightedFifo", () => {
  it("serves three waiting classes 6 : 3 : 1, interleaved, FIFO within a class", () => {
    const queue = new WeightedFifo<string>([6, 3, 1]);
    for (let i = 0; i < 30; i++) {
      queue.push(`h${i}`, 0);
      queue.push(`n${i}`, 1);
      queue.push(`b${i}`, 2);
    }
    const first = Array.from({ length: 20 }, () => queue.shift()!);
    expect(first.filter((x) => x.startsWith("h"))).toEqual(Array.from({ length: 12 }, (_, i) => `h${i}`));
    expect(first.filter((x) => x.startsWith("n"))).toEqual(Array.from({ length: 6 }, (_, i) => `n${i}`));
    expect(first.filter((x) => x.startsWith("b"))).toEqual(["b0", "b1"]);
    // Interleaved, not in runs: bulk's first turn comes within the first ten.
    expect(first.slice(0, 10)).toContain("b0");
  });

  it("gives a lone class every turn and never starves a lower one", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 300 }), (classes) => {
        const queue = new WeightedFifo<number>([6, 3, 1]);
        classes.forEach((cls, i) => queue.push(i, cls));
        const out: number[] = [];
        for (let item = queue.shift(); item !== undefined; item = queue.shift()) out.push(item);
        expect(out.sort((a, b) => a - b)).toEqual(classes.map((_, i) => i));
        expect(queue.size).toBe(0);
      }),
    );
    const queue = new WeightedFifo<string>([6, 3, 1]);
    for (let i = 0; i < 100; i++) queue.push("high", 0);
    queue.push("bulk", 2);
    const order = Array.from({ length: 101 }, () => queue.shift());
    expect(order.indexOf("bulk")).toBeLessThan(10);
  });

  it("refuses weights that are not positive", () => {
    expect(() => new WeightedFifo([1, 0])).toThrow(RangeError);
  });
});

describe("RequestWindow classes", () => {
  it("hands a freed slot to a waiting high-class request before earlier bulk ones", async () => {
    const window = new RequestWindow(1, 1000);
    await window.acquire(2);
    const order: string[] = [];
    const waiting = [
      ...Array.from({ length: 5 }, (_, i) => window.acquire(2).then(() => order.push(`bulk${i}`))),
      window.acquire(0).then(() => order.push("otp")),
    ];
    for (let i = 0; i < 6; i++) {
      window.release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(waiting);
    expect(order[0]).toBe("otp");
    expect(order.slice(1)).toEqual(["bulk0", "bulk1", "bulk2", "bulk3", "bulk4"]);
  });
});
