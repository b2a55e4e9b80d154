import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

const ledgerOf = (accountId: string) =>
  cli.db.prisma.creditLedgerEntry.findMany({ where: { accountId }, orderBy: { id: "asc" } });

describe("credits add", () => {
  it("adds credits and writes a topup ledger row with the new balance", async () => {
    const id = await cli.createAccount("Topped", 10);
    const result = await cli.run("credits", "add", id, "500", "--note", "invoice 42");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Added 500 credits to ${id}; balance is now 510.`);
    const account = await cli.db.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(account.balance).toBe(510n);
    const ledger = await ledgerOf(id);
    expect(ledger[1]).toMatchObject({ delta: 500n, balanceAfter: 510n, reason: "topup", note: "invoice 42" });
  });

  it("keeps the ledger consistent under 20 concurrent top-ups", async () => {
    const id = await cli.createAccount("Concurrent");
    const amounts = Array.from({ length: 20 }, (_, i) => i + 1);
    const results = await Promise.all(amounts.map((amount) => cli.run("credits", "add", id, String(amount))));
    expect(results.map((r) => r.code)).toEqual(amounts.map(() => 0));

    const total = amounts.reduce((sum, amount) => sum + amount, 0);
    const account = await cli.db.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(account.balance).toBe(BigInt(total));

    const ledger = await ledgerOf(id);
    expect(ledger).toHaveLength(20);
    expect(new Set(ledger.map((e) => e.balanceAfter)).size).toBe(20);
    // In commit order every row's balance_after is the previous one plus its own delta.
    let running = 0n;
    for (const entry of ledger) {
      running += entry.delta;
      expect(entry.balanceAfter).toBe(running);
    }
    expect(running).toBe(BigInt(total));
  });

  it.each([
    ["abc", "Expected a whole number"],
    ["-5", "positive"],
    ["0", "positive"],
    ["2.5", "Expected a whole number"],
  ])("rejects amount %s with exit code 2 naming the argument", async (amount, problem) => {
    const id = await cli.createAccount("Untouched", 3);
    const result = await cli.run("credits", "add", id, amount);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("'amount'");
    expect(result.stderr).toContain(problem);
    expect((await cli.db.prisma.account.findUniqueOrThrow({ where: { id } })).balance).toBe(3n);
    expect(await ledgerOf(id)).toHaveLength(1);
  });

  it("answers an unknown account with exit code 1 and writes nothing", async () => {
    const before = await cli.db.prisma.creditLedgerEntry.count();
    const result = await cli.run("credits", "add", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV", "5");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("acc_01ARZ3NDEKTSV4RRFFQ69G5FAV not found");
    expect(await cli.db.prisma.creditLedgerEntry.count()).toBe(before);
  });
});

describe("credits adjust", () => {
  it("applies a negative adjustment with its note", async () => {
    const id = await cli.createAccount("Adjusted", 100);
    const adjusted = await cli.json<{ balance: number }>(
      "credits",
      "adjust",
      id,
      "-30",
      "--note",
      "refund of double top-up",
    );
    expect(adjusted.balance).toBe(70);
    const ledger = await ledgerOf(id);
    expect(ledger.at(-1)).toMatchObject({
      delta: -30n,
      balanceAfter: 70n,
      reason: "adjustment",
      note: "refund of double top-up",
    });
  });

  it("refuses to take the balance below zero and changes nothing", async () => {
    const id = await cli.createAccount("Poor", 20);
    const result = await cli.run("credits", "adjust", id, "-21", "--note", "too much");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("below zero");
    expect((await cli.db.prisma.account.findUniqueOrThrow({ where: { id } })).balance).toBe(20n);
    expect(await ledgerOf(id)).toHaveLength(1);
    expect((await cli.run("credits", "adjust", id, "-20", "--note", "to zero")).code).toBe(0);
  });

  it("requires --note and a non-zero whole delta", async () => {
    const id = await cli.createAccount("Strict", 5);
    const noNote = await cli.run("credits", "adjust", id, "5");
    expect(noNote.code).toBe(2);
    expect(noNote.stderr).toContain("--note");
    const zero = await cli.run("credits", "adjust", id, "0", "--note", "x");
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("'delta'");
  });
});
