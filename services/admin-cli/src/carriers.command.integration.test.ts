import { CarrierHealthStore, nextTransition } from "@sms/carrier-health";
import { createRedis } from "@sms/redis";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

// Distinctive enough that finding it anywhere in the output can only mean a leak.
const PASSWORD = "Zq7#p w!";
let counter = 0;
/** A carrier id no other test in this file uses. */
const freshId = () => `carrier-${++counter}`;

/** Adds a carrier with the required options plus `extra`, and expects it to work. */
async function addCarrier(id: string, ...extra: string[]) {
  const result = await cli.run(
    "carrier",
    "add",
    id,
    "--host",
    "smpp.acme.example",
    "--port",
    "2775",
    "--system-id",
    "acme01",
    "--password",
    PASSWORD,
    ...extra,
  );
  expect(result).toMatchObject({ code: 0, stderr: "" });
  return result;
}

describe("carrier add", () => {
  it("stores what was given, with the schema's defaults for the rest", async () => {
    const id = freshId();
    const result = await addCarrier(id);
    expect(result.stdout).toBe(
      `Added carrier ${id}: smpp.acme.example:2775 (plain TCP), system_id acme01, ` +
        "1 transmitter + 1 receiver binds, window 10, 100 submits/s.",
    );
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).toMatchObject({
      name: id,
      host: "smpp.acme.example",
      port: 2775,
      systemId: "acme01",
      password: PASSWORD,
      systemType: "",
      useTls: false,
      transmitterBinds: 1,
      receiverBinds: 1,
      windowSize: 10,
      submitsPerSecond: 100,
      enabled: true,
    });
  });

  it("takes every option, and keeps credentials exactly as given (spaces included)", async () => {
    const id = freshId();
    const added = await cli.json(
      "carrier",
      "add",
      id,
      "--host",
      "10.0.0.7",
      "--port",
      "3550",
      "--system-id",
      " Acme 01 ",
      "--password",
      " pw ",
      "--system-type",
      "VMA",
      "--name",
      "Acme UK",
      "--tls",
      "--transmitters",
      "64",
      "--receivers",
      "2",
      "--window",
      "1000",
      "--tps",
      "100000",
    );
    expect(added).toMatchObject({
      id,
      name: "Acme UK",
      host: "10.0.0.7",
      port: 3550,
      tls: true,
      system_id: " Acme 01 ",
      password: "********",
      system_type: "VMA",
      transmitter_binds: 64,
      receiver_binds: 2,
      window_size: 1000,
      submits_per_second: 100000,
      enabled: true,
    });
    const stored = await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } });
    expect(stored).toMatchObject({ systemId: " Acme 01 ", password: " pw ", useTls: true });
  });

  it("refuses an id that is taken with exit code 1 and keeps the first", async () => {
    const id = freshId();
    await addCarrier(id);
    const again = await cli.run(
      "carrier",
      "add",
      id,
      "--host",
      "other.example",
      "--port",
      "1",
      "--system-id",
      "x",
      "--password",
      "y",
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`error: Carrier ${id} already exists.`);
    expect((await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).host).toBe("smpp.acme.example");
  });

  const required = ["--host", "h.example", "--port", "2775", "--system-id", "sys", "--password", "pw"];

  it.each([
    ["'carrierId'", ["Acme"]],
    ["'carrierId'", ["a".repeat(33)]],
    ["'carrierId'", ["acme_uk"]],
    ["--host", ["ok", "--host", "bad host"]],
    ["--host", ["ok", "--host", "-x.example"]],
    ["--port", ["ok", "--port", "0"]],
    ["--port", ["ok", "--port", "65536"]],
    ["--port", ["ok", "--port", "http"]],
    ["--system-id", ["ok", "--system-id", ""]],
    ["--system-id", ["ok", "--system-id", "sixteen-chars-xx"]],
    ["--system-id", ["ok", "--system-id", "café"]],
    ["--system-type", ["ok", "--system-type", "thirteen-char"]],
    ["--transmitters", ["ok", "--transmitters", "0"]],
    ["--transmitters", ["ok", "--transmitters", "65"]],
    ["--receivers", ["ok", "--receivers", "65"]],
    ["--window", ["ok", "--window", "1001"]],
    ["--tps", ["ok", "--tps", "100001"]],
    ["--tps", ["ok", "--tps", "1.5"]],
    ["--name", ["ok", "--name", "  "]],
  ])("rejects a bad %s with exit code 2 naming it (%j)", async (name, argv) => {
    // The bad option comes after the valid required ones (commander checks each occurrence).
    const [id = "", ...bad] = argv;
    const result = await cli.run("carrier", "add", id, ...required, ...bad);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(name);
    expect(result.stderr).not.toContain("    at ");
    expect(await cli.db.prisma.carrier.count({ where: { id: "ok" } })).toBe(0);
  });

  it("rejects a bad password naming the option but never echoing the value", async () => {
    for (const bad of ["nine-char", "pässwd"]) {
      const result = await cli.run("carrier", "add", "ok", ...required.slice(0, -1), bad);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain("--password");
      expect(result.stderr).toContain("value not shown");
      expect(result.stderr).not.toContain(bad);
    }
    expect(await cli.db.prisma.carrier.count({ where: { id: "ok" } })).toBe(0);
  });

  it.each(["--host", "--port", "--system-id", "--password"])("requires %s", async (option) => {
    const index = required.indexOf(option);
    const without = [...required.slice(0, index), ...required.slice(index + 2)];
    const result = await cli.run("carrier", "add", "ok", ...without);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`required option '${option}`);
  });
});

describe("carrier update", () => {
  it("changes only what is given", async () => {
    const id = freshId();
    await addCarrier(id, "--tls", "--window", "20");
    const result = await cli.run("carrier", "update", id, "--port", "2776", "--tps", "250");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Updated carrier ${id}: smpp.acme.example:2776 (TLS), system_id acme01, ` +
        "1 transmitter + 1 receiver binds, window 20, 250 submits/s.",
    );
    const updated = await cli.json(
      "carrier",
      "update",
      id,
      "--no-tls",
      "--password",
      "newpass",
      "--name",
      "Acme",
    );
    expect(updated).toMatchObject({
      port: 2776,
      tls: false,
      window_size: 20,
      name: "Acme",
      password: "********",
    });
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).toMatchObject({
      host: "smpp.acme.example",
      port: 2776,
      systemId: "acme01",
      password: "newpass",
      useTls: false,
      windowSize: 20,
      submitsPerSecond: 250,
    });
  });

  it("sets how the carrier's receipts quote our ids, its receipt window and its data_coding 0", async () => {
    const id = freshId();
    await addCarrier(id, "--receipt-ids", "hex");
    const result = await cli.run(
      "carrier",
      "update",
      id,
      "--receipt-ids",
      "decimal",
      "--receipt-window",
      "24",
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/receipts quote ids in decimal\.$/);
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).toMatchObject({
      receiptIdForm: "decimal",
      receiptWindowHours: 24,
    });
    const packed = await cli.run("carrier", "update", id, "--gsm7", "packed");
    expect(packed.stdout).toMatch(/data_coding 0 as packed\.$/);
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).toMatchObject({
      gsm7Encoding: "packed",
    });
    expect((await cli.run("carrier", "update", id, "--gsm7", "ascii")).code).toBe(2);
    const bad = await cli.run("carrier", "update", id, "--receipt-ids", "octal");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--receipt-ids.*as_is, hex, decimal/s);
  });

  it("switches a carrier to transceiver binds and back", async () => {
    const id = freshId();
    await addCarrier(id, "--transceivers", "2");
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transceiverBinds: 2,
    });
    expect((await cli.run("carrier", "show", id)).out).toContain(
      "Binds: 2 transceiver binds; window 10 per bind; 100 submits/s",
    );
    const back = await cli.run("carrier", "update", id, "--transmitters", "3");
    expect(back.stdout).toContain("3 transmitter + 1 receiver binds");
    expect(await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).toMatchObject({
      transmitterBinds: 3,
      transceiverBinds: 0,
    });
    const again = await cli.json("carrier", "update", id, "--transceivers", "1");
    expect(again).toMatchObject({ transceiver_binds: 1, transmitter_binds: 3 });
    // Both modes at once is not a carrier we can bind to: refused before anything is written.
    const both = await cli.run("carrier", "update", id, "--transceivers", "2", "--receivers", "2");
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--transceivers.*cannot be used with.*--receivers/s);
    expect((await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).transceiverBinds).toBe(1);
    expect((await cli.run("carrier", "update", id, "--transceivers", "65")).code).toBe(2);
  });

  it("can clear the system_type", async () => {
    const id = freshId();
    await addCarrier(id, "--system-type", "VMA");
    expect((await cli.run("carrier", "update", id, "--system-type", "")).code).toBe(0);
    expect((await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).systemType).toBe("");
  });

  it("needs at least one option", async () => {
    const id = freshId();
    await addCarrier(id);
    const result = await cli.run("carrier", "update", id);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("at least one of --host");
  });

  it("rejects a bad option with exit code 2 naming it", async () => {
    const id = freshId();
    await addCarrier(id);
    const result = await cli.run("carrier", "update", id, "--window", "0");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--window");
    expect((await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).windowSize).toBe(10);
  });
});

describe("carrier enable and disable", () => {
  it("switches a carrier off and on again", async () => {
    const id = freshId();
    await addCarrier(id);
    const disabled = await cli.run("carrier", "disable", id);
    expect(disabled.stdout).toBe(`Disabled carrier ${id}: its routes are skipped until it is enabled again.`);
    expect((await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).enabled).toBe(false);
    expect(await cli.json("carrier", "enable", id)).toEqual({ id, enabled: true });
    expect((await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id } })).enabled).toBe(true);
  });
});

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

describe("unknown carriers", () => {
  it.each([
    [["carrier", "update", "nope", "--port", "1"]],
    [["carrier", "enable", "nope"]],
    [["carrier", "disable", "nope"]],
    [["carrier", "show", "nope"]],
  ])("answers %j with exit code 1", async (argv) => {
    const result = await cli.run(...argv);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("error: Carrier nope not found.");
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
