import { createApiKeyDirectory, generateApiKey, hashApiKey, type SqlClient } from "@sms/auth";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { startTestGateway, type TestGateway } from "./harness";

// A revoked key stops working within 1 s on every replica (published by the
// api_keys trigger, not left to AUTH_CACHE_SECONDS), and made-up keys cannot evict real ones.
describe("API key revocation across replicas", () => {
  let world: TestWorld;
  let replicas: TestGateway[];

  beforeAll(async () => {
    world = await createTestWorld();
    // A cache lifetime far beyond the bound under test: only the notification can explain a 401.
    replicas = [
      await startTestGateway({ AUTH_CACHE_SECONDS: "300" }, world),
      await startTestGateway({ AUTH_CACHE_SECONDS: "300" }, world),
    ];
    const [first] = replicas;
    await waitFor(
      async () => {
        const { rows } = await first!.db.pool.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'api-gateway-key-changes'
             AND query LIKE 'LISTEN%'`,
        );
        return rows[0].n === 2;
      },
      { timeoutMs: 10_000, what: "both replicas listening for key changes" },
    );
  });
  afterAll(async () => {
    for (const replica of replicas) await replica.stop();
    await world.destroy();
  });

  /** Until every replica answers `status` to the key, or 5 s; returns the time it took. */
  async function timeUntilEveryReplica(key: string, status: number): Promise<number> {
    const started = Date.now();
    await waitFor(
      async () => {
        const answers = await Promise.all(
          replicas.map((replica) => replica.request("GET", "/v1/account", { key })),
        );
        return answers.every((answer) => answer.status === status);
      },
      { timeoutMs: 5000, intervalMs: 20, what: `every replica answering ${status}` },
    );
    return Date.now() - started;
  }

  it("a revoked key is refused by every replica within 1 s", async () => {
    const account = await replicas[0]!.createAccount();
    await timeUntilEveryReplica(account.key, 200);
    await replicas[0]!.db.prisma.apiKey.update({
      where: { id: account.keyId },
      data: { revokedAt: new Date() },
    });
    expect(await timeUntilEveryReplica(account.key, 401)).toBeLessThan(1000);
  });

  it("a suspended account's keys are refused by every replica within 1 s", async () => {
    const account = await replicas[0]!.createAccount();
    await timeUntilEveryReplica(account.key, 200);
    await replicas[0]!.db.prisma.account.update({
      where: { id: account.accountId },
      data: { status: "suspended" },
    });
    expect(await timeUntilEveryReplica(account.key, 403)).toBeLessThan(1000);
  });

  it("keeps a real key cached while a flood of unknown keys comes and goes", async () => {
    const account = await replicas[0]!.createAccount();
    let reads = 0;
    const pool = replicas[0]!.db.pool;
    const counted: SqlClient = {
      query(config) {
        if (config.name === "auth-load-key") reads++;
        return pool.query(config);
      },
    };
    const directory = createApiKeyDirectory(counted, { cacheSeconds: 300, maxCached: 50 });
    expect(await directory.authenticate(account.key)).not.toBeNull();
    for (let i = 0; i < 200; i++) expect(await directory.authenticate(generateApiKey().key)).toBeNull();
    reads = 0;
    expect(await directory.authenticate(account.key)).not.toBeNull();
    expect(reads).toBe(0);
    directory.forget(hashApiKey(account.key));
    expect(await directory.authenticate(account.key)).not.toBeNull();
    expect(reads).toBe(1);
  });
});
