import { verifySmppPassword } from "@sms/auth";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

const stored = (systemId: string) => cli.db.prisma.smppCredential.findUniqueOrThrow({ where: { systemId } });

describe("smpp set, reset, unlock, show, remove", () => {
  it("creates credentials with a generated password printed once and stored only as a hash", async () => {
    const id = await cli.createAccount();
    const created = await cli.json<{ system_id: string; password: string; max_binds: number }>(
      "smpp",
      "set",
      id,
      "--system-id",
      "acme01",
    );
    expect(created).toMatchObject({ system_id: "acme01", max_binds: 4 });
    expect(created.password).toMatch(/^[\x21-\x7e]{8}$/);
    const row = await stored("acme01");
    expect(row.passwordHash).not.toContain(created.password);
    expect(await verifySmppPassword(created.password, row.passwordHash)).toBe(true);
    const shown = await cli.run("smpp", "show", id);
    expect(shown.stdout).toContain("system_id acme01, up to 4 binds");
    expect(shown.stdout).not.toContain(created.password);
  });

  it("changes the bind limit without touching the password, and refuses a system_id of another account", async () => {
    const id = await cli.createAccount();
    await cli.run("smpp", "set", id, "--system-id", "acme02", "--password", "pa55word");
    const before = (await stored("acme02")).passwordHash;
    const changed = await cli.json<Record<string, unknown>>(
      "smpp",
      "set",
      id,
      "--system-id",
      "acme02",
      "--max-binds",
      "9",
    );
    expect(changed).toMatchObject({ max_binds: 9 });
    expect(changed).not.toHaveProperty("password");
    expect((await stored("acme02")).passwordHash).toBe(before);
    const other = await cli.createAccount();
    const taken = await cli.run("smpp", "set", other, "--system-id", "acme02");
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('"acme02" is already used');
  });

  it("resets a locked system_id's password and lifts the lock; unlock keeps the password", async () => {
    const id = await cli.createAccount();
    await cli.run("smpp", "set", id, "--system-id", "acme03", "--password", "first");
    await cli.db.prisma.smppCredential.update({
      where: { systemId: "acme03" },
      data: { failedAttempts: 3, lockedUntil: new Date(Date.now() + 60_000) },
    });
    expect((await cli.run("smpp", "show", id)).stdout).toContain("LOCKED until");
    const unlocked = await cli.run("smpp", "unlock", "acme03");
    expect(unlocked.code).toBe(0);
    expect(await verifySmppPassword("first", (await stored("acme03")).passwordHash)).toBe(true);
    const reset = await cli.json<{ password: string }>("smpp", "reset", "acme03");
    const row = await stored("acme03");
    expect(row).toMatchObject({ failedAttempts: 0, lockedUntil: null });
    expect(await verifySmppPassword(reset.password, row.passwordHash)).toBe(true);
    expect(await verifySmppPassword("first", row.passwordHash)).toBe(false);
  });

  it("refuses bad system ids and passwords as usage errors, and unknown ones as data errors", async () => {
    const id = await cli.createAccount();
    expect((await cli.run("smpp", "set", id, "--system-id", "x".repeat(16))).code).toBe(2);
    expect((await cli.run("smpp", "set", id, "--system-id", "ok", "--password", "123456789")).code).toBe(2);
    expect((await cli.run("smpp", "reset", "nobody")).code).toBe(1);
    expect((await cli.run("smpp", "show", id)).code).toBe(1);
    await cli.run("smpp", "set", id, "--system-id", "acme04");
    expect((await cli.run("smpp", "remove", id)).code).toBe(0);
    expect(await cli.db.prisma.smppCredential.findUnique({ where: { systemId: "acme04" } })).toBeNull();
  });
});
