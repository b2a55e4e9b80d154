import { startDispatchWorld, type DispatchWorld } from "./harness";

// A lane for one-time passwords (docs/fairness.md#lanes): replicas that work only some classes.

describe("dispatcher replicas that work some classes only (real dispatcher, simulator, PostgreSQL, Redis)", () => {
  let w: DispatchWorld;
  beforeAll(async () => {
    w = await startDispatchWorld({ env: { DISPATCH_CLASSES: "normal,bulk" } });
  });
  afterAll(() => w.stop());

  const statusOf = async (id: string) =>
    (await w.db.prisma.message.findUniqueOrThrow({ where: { id }, select: { status: true } })).status;

  it("a replica of normal and bulk leaves high to the high lane, which sends it once it runs", async () => {
    const account = { id: w.accountId, senderIds: new Set(["ACME"]) };
    const otp = await w.acceptance.acceptor.acceptOne(account, {
      to: "+14155551200",
      message: "your code is 123456",
      senderId: "ACME",
      priority: "high",
    });
    const ordinary = await w.send("+14155551201", "an ordinary message");
    await w.waitForStatus(ordinary.id, ["sent", "delivered"]);
    // The ordinary message went first although it came second: its class has a replica.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await statusOf(otp.id)).toBe("queued");

    await w.startReplica({ DISPATCH_CLASSES: "high" });
    await w.waitForStatus(otp.id, ["sent", "delivered"]);
    const segments = await w.db.pool.query<{ attempts: number }>(
      "SELECT attempts FROM message_segments WHERE message_id = $1",
      [otp.id],
    );
    expect(segments.rows.map((row) => row.attempts)).toEqual([1]);
  });
});
