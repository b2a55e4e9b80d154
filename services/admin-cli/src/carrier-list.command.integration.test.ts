import { CarrierHealthStore, nextTransition } from "@sms/carrier-health";
import { createRedis } from "@sms/redis";
import { addTestCarrier, nextCarrierId as freshId, PASSWORD } from "./carrier-fixtures";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

const addCarrier = (id: string, ...extra: string[]) => addTestCarrier(cli, id, ...extra);

describe("carrier list and show", () => {
  it("lists and shows every carrier without ever printing a password", async () => {
    const id = freshId();
    await addCarrier(id, "--system-type", "VMA");
    await cli.run("route", "add", "+44", id, "--priority", "3");

    const list = await cli.run("carrier", "list");
    expect(list.out[0]).toMatch(
      /^ID\s+NAME\s+HOST\s+PORT\s+TLS\s+SYSTEM ID\s+PASSWORD\s+TX\s+RX\s+TRX\s+WINDOW\s+TPS\s+STATUS\s+HEALTH\s+ERRORS\s+WINDOW USE$/,
    );
    const row = list.out.find((line) => line.startsWith(`${id} `)) ?? "";
    expect(row.split(/\s{2,}/)).toEqual([
      id,
      id,
      "smpp.acme.example",
      "2775",
      "no",
      "acme01",
      "********",
      "1",
      "1",
      "0",
      "10",
      "100",
      "enabled",
      "unreported",
      "-",
      "-",
    ]);
    const listed = await cli.json<Array<Record<string, unknown>>>("carrier", "list");
    expect(listed.find((c) => c.id === id)).toMatchObject({ password: "********", system_type: "VMA" });

    const show = await cli.run("carrier", "show", id);
    expect(show.code).toBe(0);
    expect(show.out).toContain(`Bind: system_id acme01, password ********, system_type "VMA"`);
    expect(show.out).toContain("Routes: +44 (priority 3)");
    const shown = await cli.json("carrier", "show", id);
    expect(shown).toMatchObject({
      id,
      password: "********",
      routes: [{ prefix: "+44", priority: 3, enabled: true }],
    });

    const outputs = [
      list,
      show,
      await cli.run("carrier", "list", "--json"),
      await cli.run("carrier", "show", id, "--json"),
    ];
    for (const output of outputs) {
      expect(output.stdout).not.toContain(PASSWORD);
      expect(output.stderr).not.toContain(PASSWORD);
    }
    // The add and update replies do not print it either.
    const other = freshId();
    expect((await addCarrier(other)).stdout).not.toContain(PASSWORD);
    const updated = await cli.run("carrier", "update", other, "--password", PASSWORD, "--json");
    expect(updated.stdout).not.toContain(PASSWORD);
  });

  it("says so when there are no carriers", async () => {
    const empty = await startCliHarness();
    try {
      expect((await empty.run("carrier", "list")).stdout).toContain("No carriers yet");
      expect(await empty.json("carrier", "list")).toEqual([]);
    } finally {
      await empty.close();
    }
  });
});

describe("carrier list: health", () => {
  it("shows each carrier's breaker, error rate and window use as the dispatchers recorded them", async () => {
    const id = freshId();
    await addCarrier(id);
    const redis = createRedis(cli.world.redisUrl, "command");
    try {
      // What two dispatcher replicas write (services/dispatcher/src/carrier-health.ts).
      const store = new CarrierHealthStore(redis, { prefix: cli.world.redisPrefix, windowMs: 30_000 });
      const binds = { outstanding: 3, window: 20, bound: 2, binds: 2 };
      await store.sync(id, { ok: 4, failed: 2 }, { instance: "a", ...binds });
      const report = await store.sync(id, { ok: 0, failed: 14 }, { instance: "b", ...binds });
      const opening = nextTransition(report.record, report.now, {
        windowMs: 30_000,
        minSubmits: 20,
        failurePercent: 50,
        openMs: 30_000,
        probes: 5,
      });
      expect(await store.transition(id, report.record, opening!)).toBe(true);

      const list = await cli.run("carrier", "list");
      const row = list.out.find((line) => line.startsWith(`${id} `)) ?? "";
      expect(row.split(/\s{2,}/).slice(-4)).toEqual(["enabled", "open", "80% of 20", "6/40"]);
      const listed = await cli.json<Array<{ id: string; health: unknown }>>("carrier", "list");
      expect(listed.find((c) => c.id === id)?.health).toEqual({
        state: "open",
        error_rate: 0.8,
        window_submits: 20,
        window_failures: 16,
        open_until: new Date(report.now + 30_000).toISOString(),
        trips: 1,
        window_outstanding: 6,
        window_capacity: 40,
        binds_bound: 4,
        binds_configured: 4,
      });
    } finally {
      redis.disconnect();
    }
  });
});
