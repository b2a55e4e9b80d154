import type { Pdu } from "./codec";
import { ConnectionLostError, NotBoundError, ResponseTimeoutError } from "./errors";
import { RequestWindow } from "./window";

const response = (sequence_number: number): Pdu => ({
  command: "submit_sm_resp",
  command_id: 0x80000004,
  command_status: 0,
  sequence_number,
  command_length: 16,
});

describe("RequestWindow", () => {
  it("holds callers beyond its size until a response frees a slot, first come first served", async () => {
    const window = new RequestWindow(2, 10000);
    const order: number[] = [];
    const slots = [1, 2, 3, 4].map((n) => window.acquire().then(() => order.push(n)));
    await Promise.all(slots.slice(0, 2));
    const first = window.track(1, "submit_sm");
    window.track(2, "submit_sm").catch(() => undefined);
    expect(order).toEqual([1, 2]);
    expect(window.waiting).toBe(2);
    expect(window.settle(response(1))).toBe(true);
    await first;
    await slots[2];
    expect(order).toEqual([1, 2, 3]);
    expect(window.settle(response(99))).toBe(false);
    window.close();
    await expect(slots[3]).rejects.toBeInstanceOf(NotBoundError);
  });

  it("rejects with ResponseTimeoutError and frees the slot", async () => {
    const window = new RequestWindow(1, 20);
    await window.acquire();
    await expect(window.track(5, "submit_sm")).rejects.toBeInstanceOf(ResponseTimeoutError);
    await window.acquire();
    expect(window.outstanding).toBe(0);
  });

  it("on close rejects in-flight requests with ConnectionLostError and waiters with NotBoundError", async () => {
    const window = new RequestWindow(1, 10000);
    await window.acquire();
    const inFlight = window.track(1, "submit_sm");
    const waiter = window.acquire();
    const idle = window.whenIdle();
    window.close("dropped");
    await expect(inFlight).rejects.toBeInstanceOf(ConnectionLostError);
    await expect(waiter).rejects.toBeInstanceOf(NotBoundError);
    await expect(window.acquire()).rejects.toBeInstanceOf(NotBoundError);
    await idle;
  });
});
