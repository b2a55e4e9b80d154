import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

describe("suppression add, list, remove", () => {
  it("adds (normalized, once), lists per account and removes a number", async () => {
    const id = await cli.createAccount();
    const other = await cli.createAccount();
    expect((await cli.run("suppression", "add", id, "+1 415 555 0160")).stdout).toBe(
      `Added +14155550160 to the suppression list of ${id}.`,
    );
    const again = await cli.run("suppression", "add", id, "+14155550160");
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("was already on the suppression list");
    const listed = await cli.json<Array<{ number: string; source: string }>>("suppression", "list", id);
    expect(listed).toEqual([
      expect.objectContaining({ number: "+14155550160", source: "admin", reply_number: null }),
    ]);
    expect((await cli.run("suppression", "list", id)).out[0]).toMatch(
      /^NUMBER\s+SOURCE\s+REPLY NUMBER\s+ADDED$/,
    );
    expect(await cli.json("suppression", "list", other)).toEqual([]);
    const otherRemove = await cli.run("suppression", "remove", other, "+14155550160");
    expect(otherRemove.code).toBe(1);
    expect(otherRemove.stderr).toContain("is not on the suppression list");
    expect((await cli.run("suppression", "remove", id, "+14155550160")).code).toBe(0);
    expect(await cli.json("suppression", "list", id)).toEqual([]);
  });

  it("refuses a number that is not E.164 and an unknown account", async () => {
    const id = await cli.createAccount();
    const bad = await cli.run("suppression", "add", id, "0412 345 678");
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("leading +");
    const unknown = await cli.run("suppression", "add", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV", "+14155550160");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not found");
  });
});
