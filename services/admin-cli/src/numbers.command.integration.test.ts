import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

describe("number add, list, remove", () => {
  it("gives numbers and short codes to an account, lists and removes them", async () => {
    const id = await cli.createAccount();
    expect((await cli.run("number", "add", id, "+14155550199")).stdout).toBe(
      `+14155550199 now receives inbound messages for ${id}.`,
    );
    expect((await cli.run("number", "add", id, "12345")).code).toBe(0);
    const listed = await cli.json<Array<{ number: string }>>("number", "list", id);
    expect(listed.map((n) => n.number)).toEqual(["+14155550199", "12345"]);
    expect((await cli.run("number", "remove", id, "12345")).code).toBe(0);
    const rows = await cli.db.prisma.inboundNumber.findMany({ where: { accountId: id } });
    expect(rows.map((r) => r.number)).toEqual(["+14155550199"]);
    const missing = await cli.run("number", "remove", id, "12345");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`12345 is not a number of ${id}`);
  });

  it("keeps a number with one account at a time", async () => {
    const first = await cli.createAccount();
    const second = await cli.createAccount();
    await cli.run("number", "add", first, "+14155550198");
    const taken = await cli.run("number", "add", second, "+14155550198");
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`belongs to ${first}`);
    expect(
      (await cli.db.prisma.inboundNumber.findUnique({ where: { number: "+14155550198" } }))?.accountId,
    ).toBe(first);
  });

  it.each(["14155550100", "+0123456", "12", "123456789", "+1 415 555", "SHORT"])(
    "refuses %j with exit code 2 naming the argument",
    async (value) => {
      const id = await cli.createAccount();
      const result = await cli.run("number", "add", id, value);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("'number'");
      expect(await cli.db.prisma.inboundNumber.count({ where: { accountId: id } })).toBe(0);
    },
  );
});
