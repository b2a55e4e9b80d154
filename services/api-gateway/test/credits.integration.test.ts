import { startTestGateway, type TestGateway } from "./harness";

describe("credits under concurrency", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.stop());

  it("50 concurrent sends against credits for 20 segments: exactly 20 accepted, balance 0, the ledger adds up", async () => {
    const account = await gw.createAccount({ credits: 20 });
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        gw.request("POST", "/v1/sms/send", {
          key: account.key,
          body: { to: `+1415555${String(1000 + i)}`, message: `hello ${i}`, sender_id: "ACME" },
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(20);
    expect(statuses.filter((s) => s === 402)).toHaveLength(30);
    expect(
      responses.filter((r) => r.status === 402).every((r) => r.body.error.code === "INSUFFICIENT_CREDITS"),
    ).toBe(true);

    const row = await gw.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(row.balance).toBe(0n);
    const ledger = await gw.db.prisma.creditLedgerEntry.findMany({
      where: { accountId: account.accountId },
      orderBy: { id: "asc" },
    });
    // One entry per account and acceptance statement (docs/decisions.md#ledger-per-statement).
    expect(ledger.reduce((sum, e) => sum + e.delta, 0n)).toBe(-20n);
    expect(ledger.reduce((sum, e) => sum + (e.messageCount ?? 0), 0)).toBe(20);
    // Each entry's balance_after is the previous one plus its own delta: a consistent running balance.
    ledger.reduce((before, entry) => {
      expect(entry.balanceAfter).toBe(before + entry.delta);
      return entry.balanceAfter;
    }, 20n);
    const accepted = new Set(responses.filter((r) => r.status === 202).map((r) => r.body.message_id));
    for (const entry of ledger) {
      expect(entry.reason).toBe("message_charge");
      if (entry.messageCount === 1) expect(accepted).toContain(entry.messageId);
      else expect(entry.messageId).toBeNull();
    }
    expect(await gw.db.prisma.message.count({ where: { accountId: account.accountId } })).toBe(20);
  });

  it("charges by segments in a mixed race and never goes below zero", async () => {
    const account = await gw.createAccount({ credits: 25 });
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        gw.request("POST", "/v1/sms/send", {
          key: account.key,
          body: { to: "+14155550100", message: i % 2 ? "z".repeat(300) : "z", sender_id: "ACME" },
        }),
      ),
    );
    const charged = responses
      .filter((r) => r.status === 202)
      .reduce((sum, r) => sum + (r.body.segments as number), 0);
    const row = await gw.db.prisma.account.findUniqueOrThrow({ where: { id: account.accountId } });
    expect(row.balance).toBe(BigInt(25 - charged));
    expect(row.balance >= 0n).toBe(true);
    const sum = await gw.db.prisma.creditLedgerEntry.aggregate({
      where: { accountId: account.accountId },
      _sum: { delta: true },
    });
    expect(sum._sum.delta).toBe(BigInt(-charged));
  });
});
