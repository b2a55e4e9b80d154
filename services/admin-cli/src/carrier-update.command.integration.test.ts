import { addTestCarrier, nextCarrierId as freshId } from "./carrier-fixtures";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

const addCarrier = (id: string, ...extra: string[]) => addTestCarrier(cli, id, ...extra);

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
