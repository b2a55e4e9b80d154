import { createDatabase } from "@sms/db";
import { freePort, withDatabase } from "@sms/testing";
import { runCli } from "./cli";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

describe("account create", () => {
  it("creates an account and prints only its acc_ id", async () => {
    const result = await cli.run("account", "create", "--name", "Acme Ltd");
    expect(result.code).toBe(0);
    expect(result.out).toHaveLength(1);
    expect(result.stdout).toMatch(/^acc_[0-9A-HJKMNP-TV-Z]{26}$/);
    const account = await cli.db.prisma.account.findUniqueOrThrow({ where: { id: result.stdout } });
    expect(account).toMatchObject({ name: "Acme Ltd", status: "active", balance: 0n });
    expect(await cli.db.prisma.creditLedgerEntry.count({ where: { accountId: account.id } })).toBe(0);
  });

  it("records opening credits as a topup ledger row", async () => {
    const created = await cli.json<{ id: string; balance: number }>(
      "account",
      "create",
      "--name",
      "Funded",
      "--credits",
      "250",
    );
    expect(created.balance).toBe(250);
    const ledger = await cli.db.prisma.creditLedgerEntry.findMany({ where: { accountId: created.id } });
    expect(ledger).toEqual([expect.objectContaining({ delta: 250n, balanceAfter: 250n, reason: "topup" })]);
  });

  it("rejects a missing --name with exit code 2", async () => {
    const result = await cli.run("account", "create");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--name");
  });

  it.each([["abc"], ["-5"], ["1.5"], ["1e3"]])(
    "rejects --credits %s with exit code 2 naming the option",
    async (credits) => {
      const before = await cli.db.prisma.account.count();
      const result = await cli.run("account", "create", "--name", "Bad", "--credits", credits);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--credits");
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(await cli.db.prisma.account.count()).toBe(before);
    },
  );

  it("rejects a blank name", async () => {
    const result = await cli.run("account", "create", "--name", "   ");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--name");
  });
});

describe("account list", () => {
  it("lists accounts in a table and as JSON", async () => {
    const id = await cli.createAccount("Listed Co", 7);
    const human = await cli.run("account", "list");
    expect(human.code).toBe(0);
    expect(human.out[0]).toMatch(/^ID\s+NAME\s+STATUS\s+BALANCE\s+CREATED$/);
    expect(human.out.find((line) => line.startsWith(id))).toMatch(/Listed Co\s+active\s+7\s/);
    const listed = await cli.json<Array<{ id: string; name: string; balance: number }>>("account", "list");
    expect(listed).toContainEqual(expect.objectContaining({ id, name: "Listed Co", balance: 7 }));
  });
});

describe("account show", () => {
  it("shows balance, limits, sender ids and keys without their hashes", async () => {
    const id = await cli.createAccount("Shown", 42);
    expect((await cli.run("sender", "add", id, "SHOWN")).code).toBe(0);
    const key = await cli.json<{ id: string; key: string }>("key", "create", id, "--name", "ci");
    const stored = await cli.db.prisma.apiKey.findUniqueOrThrow({ where: { id: key.id } });

    const shown = await cli.json<Record<string, unknown>>("account", "show", id);
    expect(shown).toMatchObject({
      id,
      name: "Shown",
      balance: 42,
      limits: {
        requests_per_second: 100,
        messages_per_second: 100,
        daily_quota: 100000,
        daily_quota_used: 0,
        max_batch_size: 10000,
      },
      sender_ids: ["SHOWN"],
      keys: [expect.objectContaining({ id: key.id, name: "ci", prefix: stored.prefix, revoked_at: null })],
    });
    expect(JSON.stringify(shown)).not.toContain(stored.hash);

    const human = await cli.run("account", "show", id);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("Balance: 42 credits");
    expect(human.stdout).toContain("Sender ids: SHOWN");
    expect(human.stdout).toContain(key.id);
    expect(human.stdout).not.toContain(stored.hash);
    expect(human.stdout).not.toContain(key.key);
  });

  it("answers an unknown account with exit code 1", async () => {
    const result = await cli.run("account", "show", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("error: Account acc_01ARZ3NDEKTSV4RRFFQ69G5FAV not found.");
  });

  it("rejects a malformed account id with exit code 2 naming the argument", async () => {
    const result = await cli.run("account", "show", "acme");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("accountId");
  });
});

describe("the program", () => {
  it("exits 2 on an unknown command and 0 on --help", async () => {
    const unknown = await cli.run("acount", "list");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'acount'");
    const help = await cli.run("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("credits");
    expect((await cli.run()).code).toBe(2);
  });
});

describe("database trouble", () => {
  async function runAgainst(url: string, ...argv: string[]) {
    const db = createDatabase(url, { poolSize: 1 });
    const err: string[] = [];
    try {
      const code = await runCli(argv, {
        db,
        gatewayUrl: cli.gatewayUrl,
        dashboardUrl: "http://127.0.0.1:3100",
        smppServerAddress: "127.0.0.1:2775",
        simulatorSmpp: cli.simulatorSmpp,
        webhooks: () => {
          throw new Error("no webhook commands here");
        },
        out: () => undefined,
        err: (line) => err.push(line),
      });
      return { code, stderr: err.join("\n") };
    } finally {
      await db.close();
    }
  }

  it("says the database cannot be reached, without a stack trace", async () => {
    const result = await runAgainst(
      `postgresql://postgres@127.0.0.1:${await freePort()}/sms`,
      "account",
      "list",
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: cannot use the database \(check DATABASE_URL\): /);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("says the database is not migrated", async () => {
    const result = await runAgainst(withDatabase(cli.world.databaseUrl, "postgres"), "account", "list");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("the database is not migrated (run `pnpm migrate`)");
  });
});
