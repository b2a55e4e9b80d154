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
