import { execFileSync } from "node:child_process";
import { hashApiKey, hashSecretToken, verifySmppPassword } from "@sms/auth";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

/** What a shell passes to curl for `line`, with curl replaced by a function printing one argument per line. */
function curlArguments(line: string): string[] {
  const output = execFileSync("bash", ["-c", `curl() { printf '%s\\0' "$@"; }; ${line}`], {
    encoding: "utf8",
  });
  return output.split("\0").slice(0, -1);
}

describe("demo", () => {
  it("is idempotent: one account, one active demo-start key, the newest one", async () => {
    const first = await cli.run("demo");
    expect(first.code).toBe(0);
    const second = await cli.json<{
      account_id: string;
      key: string;
      key_id: string;
      created_account: boolean;
      balance: number;
    }>("demo");
    expect(second.created_account).toBe(false);
    expect(second.balance).toBe(1000);

    const accounts = await cli.db.prisma.account.findMany({ where: { name: "demo" } });
    expect(accounts.map((a) => a.id)).toEqual([second.account_id]);
    expect(accounts[0]?.balance).toBe(1000n);
    const ledger = await cli.db.prisma.creditLedgerEntry.findMany({
      where: { accountId: second.account_id },
    });
    expect(ledger).toEqual([expect.objectContaining({ delta: 1000n, balanceAfter: 1000n, reason: "topup" })]);
    const senders = await cli.db.prisma.senderId.findMany({ where: { accountId: second.account_id } });
    expect(senders.map((s) => s.value)).toEqual(["DEMO"]);
    const numbers = await cli.db.prisma.inboundNumber.findMany({ where: { accountId: second.account_id } });
    expect(numbers.map((n) => n.number)).toEqual(["+14155550123"]);

    const firstKey = /^API key: (\S+)$/m.exec(first.stdout)?.[1] ?? "";
    expect(firstKey).toMatch(/^sk_live_/);
    const keys = await cli.db.prisma.apiKey.findMany({
      where: { accountId: second.account_id, name: "demo-start" },
    });
    expect(keys).toHaveLength(2);
    const active = keys.filter((k) => k.revokedAt === null);
    expect(active.map((k) => k.hash)).toEqual([hashApiKey(second.key)]);
    expect(keys.find((k) => k.hash === hashApiKey(firstKey))?.revokedAt).toBeInstanceOf(Date);
  });

  it("gives the demo account SMPP credentials, a new password each run, that the smpp-server's check accepts", async () => {
    const first = await cli.run("demo");
    const line =
      /^SMPP: bind to 127\.0\.0\.1:2775 with system_id demo, password (\S+) \(sender id DEMO\)$/m.exec(
        first.stdout,
      );
    expect(line).not.toBeNull();
    const second = await cli.json<{ account_id: string; smpp_system_id: string; smpp_password: string }>(
      "demo",
    );
    expect(second.smpp_system_id).toBe("demo");
    expect(second.smpp_password).not.toBe(line![1]);
    const stored = await cli.db.prisma.smppCredential.findUniqueOrThrow({ where: { systemId: "demo" } });
    expect(stored.accountId).toBe(second.account_id);
    expect(stored.passwordHash).not.toContain(second.smpp_password);
    expect(await verifySmppPassword(second.smpp_password, stored.passwordHash)).toBe(true);
    expect(await verifySmppPassword(line![1]!, stored.passwordHash)).toBe(false);
  });

  it("prints a one-time dashboard link for demo@example.com; each run replaces it and keeps one user", async () => {
    const first = await cli.json<{ account_id: string; dashboard_invite_link: string }>("demo");
    const second = await cli.json<{ account_id: string; dashboard_invite_link: string }>("demo");
    expect(first.dashboard_invite_link).toMatch(/^http:\/\/127\.0\.0\.1:3100\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(second.dashboard_invite_link).not.toBe(first.dashboard_invite_link);
    const users = await cli.db.prisma.dashboardUser.findMany({ where: { email: "demo@example.com" } });
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({
      accountId: second.account_id,
      inviteTokenHash: hashSecretToken(second.dashboard_invite_link.split("/").pop()!),
    });
  });

  it("prints a send line that works as printed and a status line", async () => {
    const result = await cli.run("demo");
    const key = /^API key: (\S+)$/m.exec(result.stdout)?.[1] ?? "";
    const send = result.out.find((line) => line.startsWith("curl -sS -X POST")) ?? "";
    expect(send).toBe(
      `curl -sS -X POST ${cli.gatewayUrl}/v1/sms/send -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" ` +
        `-d '{"to":"+14155550100","message":"Hello from the SMS platform","sender_id":"DEMO"}'`,
    );
    const args = curlArguments(send);
    expect(args.slice(0, 4)).toEqual(["-sS", "-X", "POST", `${cli.gatewayUrl}/v1/sms/send`]);
    expect(args).toContain(`Authorization: Bearer ${key}`);
    expect(JSON.parse(args[args.indexOf("-d") + 1] ?? "")).toEqual({
      to: "+14155550100",
      message: "Hello from the SMS platform",
      sender_id: "DEMO",
    });
    expect(result.out).toContain(
      `curl -sS ${cli.gatewayUrl}/v1/sms/<message_id> -H "Authorization: Bearer ${key}"`,
    );
  });

  it("creates one demo account even when started twice at once", async () => {
    const before = await cli.db.prisma.account.count({ where: { name: "demo" } });
    const runs = await Promise.all([cli.run("demo"), cli.run("demo"), cli.run("demo")]);
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0]);
    expect(await cli.db.prisma.account.count({ where: { name: "demo" } })).toBe(Math.max(before, 1));
    const active = await cli.db.prisma.apiKey.count({ where: { name: "demo-start", revokedAt: null } });
    expect(active).toBe(1);
    expect(await cli.db.prisma.carrier.count()).toBe(1);
    expect(await cli.db.prisma.route.count()).toBe(1);
  });
});

describe("demo's carrier simulator", () => {
  type DemoJson = {
    carrier_id: string;
    carrier_host: string;
    carrier_port: number;
    carrier_change: string;
    carrier_enabled: boolean;
    route_prefix: string;
    created_route: boolean;
  };

  it("puts the simulator's password back in clear when it is sealed (under a key this clone may not have)", async () => {
    await cli.json<DemoJson>("demo");
    await cli.db.prisma.carrier.update({
      where: { id: "simulator" },
      data: { password: "", passwordSealed: "v1.sealed-under-another-key" },
    });
    expect(await cli.json<DemoJson>("demo")).toMatchObject({ carrier_change: "updated" });
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id: "simulator" } })).toMatchObject({
      password: "platform",
      passwordSealed: null,
    });
    expect(await cli.json<DemoJson>("demo")).toMatchObject({ carrier_change: "unchanged" });
  });

  it('is idempotent: one "simulator" carrier with the demo settings, one route "+" to it', async () => {
    const first = await cli.json<DemoJson>("demo");
    expect(first).toMatchObject({
      carrier_id: "simulator",
      carrier_host: "127.0.0.1",
      carrier_port: 2776,
      carrier_enabled: true,
      route_prefix: "+",
    });
    const second = await cli.json<DemoJson>("demo");
    expect(second).toMatchObject({
      carrier_id: "simulator",
      carrier_change: "unchanged",
      created_route: false,
    });

    const carriers = await cli.db.prisma.carrier.findMany();
    expect(carriers).toEqual([
      expect.objectContaining({
        id: "simulator",
        host: "127.0.0.1",
        port: 2776,
        systemId: "platform",
        password: "platform",
        systemType: "",
        useTls: false,
        transmitterBinds: 2,
        receiverBinds: 1,
        windowSize: 50,
        submitsPerSecond: 5000,
        enabled: true,
      }),
    ]);
    const routes = await cli.db.prisma.route.findMany();
    expect(routes).toEqual([
      expect.objectContaining({ prefix: "+", carrierId: "simulator", priority: 0, enabled: true }),
    ]);
    expect(await cli.json("route", "list", "--for", "+14155550100")).toMatchObject({
      carriers: [{ carrier_id: "simulator", prefix: "+" }],
    });
    const human = await cli.run("demo");
    expect(human.out).toContain(
      "Carrier simulator at 127.0.0.1:2776 (unchanged), route + → simulator (existing)",
    );
    // The carrier's bind password ("platform") is never printed; the one password shown is the demo account's own.
    expect(human.out.filter((line) => /password/i.test(line))).toEqual([
      expect.stringMatching(/^SMPP: bind to /),
    ]);
    expect(human.stdout).not.toMatch(/(?<!SMS )\bplatform\b/);
  });

  it("follows a changed simulator address and leaves what an operator tuned", async () => {
    await cli.json("demo");
    expect((await cli.run("carrier", "update", "simulator", "--tps", "123")).code).toBe(0);

    const moved = await cli.runWith(
      { simulatorSmpp: { host: "carrier-sim.local", port: 12776 } },
      "demo",
      "--json",
    );
    expect(moved.code).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({
      carrier_id: "simulator",
      carrier_host: "carrier-sim.local",
      carrier_port: 12776,
      carrier_change: "updated",
      created_route: false,
    });
    expect(await cli.db.prisma.carrier.findMany()).toEqual([
      expect.objectContaining({
        id: "simulator",
        host: "carrier-sim.local",
        port: 12776,
        submitsPerSecond: 123,
      }),
    ]);
    expect(await cli.db.prisma.route.count()).toBe(1);

    // Back to the defaults for the other tests.
    expect(await cli.json<DemoJson>("demo")).toMatchObject({ carrier_change: "updated", carrier_port: 2776 });
    await cli.run("carrier", "update", "simulator", "--tps", "5000");
  });

  it("puts back a removed route and says when the carrier is disabled", async () => {
    await cli.json("demo");
    expect((await cli.run("route", "remove", "+", "simulator")).code).toBe(0);
    await cli.run("carrier", "disable", "simulator");
    try {
      const result = await cli.run("demo");
      expect(result.code).toBe(0);
      expect(result.out).toContain(
        "Carrier simulator at 127.0.0.1:2776 (unchanged), route + → simulator (created)",
      );
      expect(result.out).toContain(
        "Carrier simulator is disabled: enable it with `carrier enable simulator`.",
      );
      expect(await cli.db.prisma.route.count({ where: { prefix: "+", carrierId: "simulator" } })).toBe(1);
    } finally {
      await cli.run("carrier", "enable", "simulator");
    }
  });
});
