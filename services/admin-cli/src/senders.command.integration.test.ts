import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

const UNKNOWN_ACCOUNT = "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV";

describe("sender add, list, remove", () => {
  it("authorizes, lists and withdraws sender ids", async () => {
    const id = await cli.createAccount();
    expect((await cli.run("sender", "add", id, "Acme Shop")).stdout).toBe(
      `Authorized sender id "Acme Shop" for ${id}.`,
    );
    expect((await cli.run("sender", "add", id, "+14155550100")).code).toBe(0);

    const listed = await cli.json<Array<{ id: string; sender_id: string }>>("sender", "list", id);
    expect(listed.map((s) => s.sender_id)).toEqual(["+14155550100", "Acme Shop"]);
    expect(listed.every((s) => s.id.startsWith("snd_"))).toBe(true);
    const human = await cli.run("sender", "list", id);
    expect(human.out[0]).toMatch(/^SENDER ID\s+ADDED$/);

    const removed = await cli.run("sender", "remove", id, "Acme Shop");
    expect(removed.code).toBe(0);
    const rows = await cli.db.prisma.senderId.findMany({ where: { accountId: id } });
    expect(rows.map((r) => r.value)).toEqual(["+14155550100"]);
  });

  it("refuses a duplicate with exit code 1", async () => {
    const id = await cli.createAccount();
    await cli.run("sender", "add", id, "DUP");
    const again = await cli.run("sender", "add", id, "DUP");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('"DUP" is already authorized');
  });

  it.each(["ABCDEFGHIJKL", "Acme-Shop", "1234567890123456", "12 34"])(
    "rejects the invalid sender id %j with exit code 2 naming the argument",
    async (value) => {
      const id = await cli.createAccount();
      const result = await cli.run("sender", "add", id, value);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("'senderId'");
      expect(result.stderr).toContain("Not a valid sender id");
      expect(await cli.db.prisma.senderId.count({ where: { accountId: id } })).toBe(0);
    },
  );

  it("answers an unknown account or sender id with exit code 1", async () => {
    const id = await cli.createAccount();
    const notAuthorized = await cli.run("sender", "remove", id, "NOPE");
    expect(notAuthorized.code).toBe(1);
    expect(notAuthorized.stderr).toContain('"NOPE" is not authorized');
    for (const argv of [
      ["sender", "add", UNKNOWN_ACCOUNT, "DEMO"],
      ["sender", "remove", UNKNOWN_ACCOUNT, "DEMO"],
      ["sender", "list", UNKNOWN_ACCOUNT],
    ]) {
      const result = await cli.run(...argv);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${UNKNOWN_ACCOUNT} not found`);
    }
  });
});
