import { hashApiKey, PERMISSIONS } from "@sms/auth";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

/** Every column of the api_keys row, as text. */
async function rawKeyRow(id: string): Promise<Record<string, unknown>> {
  const { rows } = await cli.db.pool.query("SELECT * FROM api_keys WHERE id = $1", [id]);
  expect(rows).toHaveLength(1);
  return rows[0] as Record<string, unknown>;
}

describe("key create", () => {
  it("prints the key once and stores only its SHA-256 hash and a 12-character prefix", async () => {
    const accountId = await cli.createAccount();
    const result = await cli.run("key", "create", accountId, "--name", "backend");
    expect(result.code).toBe(0);
    const key = result.out[0] ?? "";
    expect(key).toMatch(/^sk_live_[A-Za-z0-9_-]{43}$/);
    expect(result.stdout.split(key)).toHaveLength(2);

    const [stored] = await cli.db.prisma.apiKey.findMany({ where: { accountId } });
    expect(stored).toMatchObject({
      name: "backend",
      prefix: key.slice(0, 12),
      hash: hashApiKey(key),
      revokedAt: null,
    });
    expect(stored?.permissions).toEqual([...PERMISSIONS]);
    expect(result.stdout).toContain(stored?.id);

    const row = await rawKeyRow(stored?.id ?? "");
    expect(Object.keys(row)).toContain("hash");
    const leaking = Object.entries(row).filter(([, value]) => JSON.stringify(value ?? null).includes(key));
    expect(leaking.map(([column]) => column)).toEqual([]);
  });

  it("stores the permissions asked for", async () => {
    const accountId = await cli.createAccount();
    const issued = await cli.json<{ id: string; permissions: string[] }>(
      "key",
      "create",
      accountId,
      "--permissions",
      "sms:send, sms:read,sms:send",
    );
    expect(issued.permissions).toEqual(["sms:send", "sms:read"]);
    const stored = await cli.db.prisma.apiKey.findUniqueOrThrow({ where: { id: issued.id } });
    expect(stored.permissions).toEqual(["sms:send", "sms:read"]);
  });

  it("rejects an unknown permission with exit code 2 naming it", async () => {
    const accountId = await cli.createAccount();
    const result = await cli.run("key", "create", accountId, "--permissions", "sms:send,sms:delete");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--permissions");
    expect(result.stderr).toContain("'sms:delete'");
    expect(await cli.db.prisma.apiKey.count({ where: { accountId } })).toBe(0);
  });

  it("answers an unknown account with exit code 1", async () => {
    const result = await cli.run("key", "create", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("not found");
  });
});

describe("key revoke", () => {
  it("sets revoked_at, and revoking again keeps the first time", async () => {
    const accountId = await cli.createAccount();
    const { id } = await cli.json<{ id: string }>("key", "create", accountId);
    const first = await cli.run("key", "revoke", id);
    expect(first.code).toBe(0);
    const revoked = await cli.db.prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect(revoked.revokedAt).toBeInstanceOf(Date);

    const second = await cli.run("key", "revoke", id);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("already revoked");
    const still = await cli.db.prisma.apiKey.findUniqueOrThrow({ where: { id } });
    expect(still.revokedAt).toEqual(revoked.revokedAt);
  });

  it("answers an unknown key with exit code 1 and a malformed one with 2", async () => {
    const unknown = await cli.run("key", "revoke", "key_01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("API key key_01ARZ3NDEKTSV4RRFFQ69G5FAV not found");
    const malformed = await cli.run("key", "revoke", "sk_live_abc");
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain("'keyId'");
  });
});

describe("key list", () => {
  it("lists id, name, prefix and dates, never the hash", async () => {
    const accountId = await cli.createAccount();
    const a = await cli.json<{ id: string }>("key", "create", accountId, "--name", "one");
    const b = await cli.json<{ id: string }>("key", "create", accountId, "--name", "two");
    await cli.run("key", "revoke", a.id);
    const hashes = (await cli.db.prisma.apiKey.findMany({ where: { accountId } })).map((k) => k.hash);

    const listed = await cli.json<Array<Record<string, unknown>>>("key", "list", accountId);
    expect(listed.map((k) => [k.id, k.name])).toEqual([
      [a.id, "one"],
      [b.id, "two"],
    ]);
    expect(listed[0]?.revoked_at).toEqual(expect.any(String));
    expect(listed[1]).toMatchObject({
      revoked_at: null,
      last_used_at: null,
      prefix: expect.stringMatching(/^sk_live_/),
    });
    expect(listed.every((k) => !("hash" in k))).toBe(true);

    const human = await cli.run("key", "list", accountId);
    expect(human.out[0]).toMatch(/^ID\s+NAME\s+PREFIX\s+PERMISSIONS\s+CREATED\s+LAST USED\s+REVOKED$/);
    for (const hash of hashes) {
      expect(human.stdout).not.toContain(hash);
      expect(JSON.stringify(listed)).not.toContain(hash);
    }
  });
});
