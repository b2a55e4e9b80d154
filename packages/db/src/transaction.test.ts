import { retryOnDeadlock } from "./transaction";

const deadlock = () => Object.assign(new Error("deadlock detected"), { code: "40P01" });

describe("retryOnDeadlock", () => {
  it("runs the work again after a deadlock and returns its result", async () => {
    let calls = 0;
    const result = await retryOnDeadlock(async () => {
      if (++calls < 3) throw deadlock();
      return "done";
    });
    expect(result).toBe("done");
    expect(calls).toBe(3);
  });

  it("does not retry any other error", async () => {
    let calls = 0;
    const unique = Object.assign(new Error("duplicate key"), { code: "23505" });
    await expect(
      retryOnDeadlock(async () => {
        calls++;
        throw unique;
      }),
    ).rejects.toBe(unique);
    expect(calls).toBe(1);
  });

  it("gives up after the attempts it was given, with the last deadlock", async () => {
    let calls = 0;
    await expect(
      retryOnDeadlock(async () => {
        calls++;
        throw deadlock();
      }, 3),
    ).rejects.toMatchObject({ code: "40P01" });
    expect(calls).toBe(3);
  });
});
