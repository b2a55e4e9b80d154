import { hashSecretToken } from "@sms/auth";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

describe("dashboard invite", () => {
  it("creates the user without a password and prints a one-time link whose token is stored only as a hash", async () => {
    const account = await cli.createAccount();
    const result = await cli.runWith(
      { dashboardUrl: "https://dash.example.com/" },
      "dashboard",
      "invite",
      account,
      "  Ann@Example.COM ",
    );
    expect(result.code).toBe(0);
    const link = result.out[0] ?? "";
    expect(link).toMatch(/^https:\/\/dash\.example\.com\/invite\/[A-Za-z0-9_-]{43}$/);
    const token = link.split("/").pop()!;
    const user = await cli.db.prisma.dashboardUser.findUniqueOrThrow({ where: { email: "ann@example.com" } });
    expect(user).toMatchObject({
      accountId: account,
      passwordHash: null,
      inviteTokenHash: hashSecretToken(token),
    });
    expect(user.inviteExpiresAt!.getTime() - Date.now()).toBeGreaterThan(71 * 3600 * 1000);
    const { rows } = await cli.db.pool.query("SELECT * FROM dashboard_users WHERE id = $1", [user.id]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it("inviting again replaces the link (the old one stops working) and keeps the user", async () => {
    const account = await cli.createAccount();
    const first = await cli.json<{ user_id: string; link: string; created: boolean }>(
      "dashboard",
      "invite",
      account,
      "bob@example.com",
    );
    const second = await cli.json<{ user_id: string; link: string; created: boolean }>(
      "dashboard",
      "invite",
      account,
      "bob@example.com",
    );
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ user_id: first.user_id, created: false });
    expect(second.link).not.toBe(first.link);
    const user = await cli.db.prisma.dashboardUser.findUniqueOrThrow({ where: { id: first.user_id } });
    expect(user.inviteTokenHash).toBe(hashSecretToken(second.link.split("/").pop()!));
    const users = await cli.json<unknown[]>("dashboard", "users", account);
    expect(users).toEqual([
      { id: first.user_id, email: "bob@example.com", has_password: false, last_sign_in_at: null },
    ]);
  });

  it("refuses an address of another account, a malformed address and an unknown account", async () => {
    const a = await cli.createAccount();
    const b = await cli.createAccount();
    expect((await cli.run("dashboard", "invite", a, "carol@example.com")).code).toBe(0);
    const taken = await cli.run("dashboard", "invite", b, "carol@example.com");
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain("another account");
    const malformed = await cli.run("dashboard", "invite", a, "not-an-address");
    expect(malformed.code).toBe(1);
    expect(malformed.stderr).toContain("not an e-mail address");
    const unknown = await cli.run("dashboard", "invite", "acc_01JAAAAAAAAAAAAAAAAAAAAAAA", "dan@example.com");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not found");
  });
});
