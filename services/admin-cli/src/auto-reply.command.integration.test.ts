import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

describe("auto-reply", () => {
  it("is off by default; set changes only what is named; off clears the families named", async () => {
    const id = await cli.createAccount("Acme");
    expect(await cli.json("auto-reply", "show", id)).toEqual({
      account_id: id,
      auto_replies: { stop: null, start: null, help: null },
    });
    expect(
      await cli.json(
        "auto-reply",
        "set",
        id,
        "--stop",
        "Acme: unsubscribed.",
        "--help-text",
        "Acme: reply STOP",
      ),
    ).toEqual({
      account_id: id,
      auto_replies: { stop: "Acme: unsubscribed.", start: null, help: "Acme: reply STOP" },
    });
    await cli.json("auto-reply", "set", id, "--start", "Welcome back");
    expect(await cli.json("auto-reply", "off", id, "help", "stop")).toEqual({
      account_id: id,
      auto_replies: { stop: null, start: "Welcome back", help: null },
    });
    expect((await cli.run("auto-reply", "show", id)).stdout).toContain('START "Welcome back"');
  });

  it("refuses a blank or too long text, no option, an unknown family and an unknown account", async () => {
    const id = await cli.createAccount("Acme");
    expect((await cli.run("auto-reply", "set", id, "--stop", "  ")).code).toBe(2);
    expect((await cli.run("auto-reply", "set", id, "--stop", "x".repeat(1531))).code).toBe(2);
    expect((await cli.run("auto-reply", "set", id)).code).toBe(2);
    expect((await cli.run("auto-reply", "off", id, "later")).code).toBe(2);
    const missing = await cli.run("auto-reply", "set", "acc_01JD6Z8Q4G2M0F3T6S8V9W0X21", "--stop", "bye");
    expect(missing.code).toBe(1);
    expect(await cli.json("auto-reply", "show", id)).toMatchObject({
      auto_replies: { stop: null, start: null, help: null },
    });
  });
});
