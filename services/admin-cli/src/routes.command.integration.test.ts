import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

async function addCarrier(id: string): Promise<void> {
  const result = await cli.run(
    "carrier",
    "add",
    id,
    "--host",
    "127.0.0.1",
    "--port",
    "2775",
    "--system-id",
    id,
    "--password",
    "pw",
  );
  expect(result.code).toBe(0);
}

async function routesOf(carrierId: string) {
  return cli.db.prisma.route.findMany({ where: { carrierId }, orderBy: { prefix: "asc" } });
}

beforeAll(async () => {
  for (const id of ["global", "us-a", "us-b", "sf", "uk", "spare"]) await addCarrier(id);
});

describe("route add and remove", () => {
  it("adds a route with a priority, lists it and removes it", async () => {
    const added = await cli.run("route", "add", "+4479", "spare", "--priority", "7");
    expect(added).toMatchObject({ code: 0, stdout: "Added route +4479 → spare (priority 7)." });
    expect(await routesOf("spare")).toEqual([
      expect.objectContaining({
        prefix: "+4479",
        priority: 7,
        enabled: true,
        id: expect.stringMatching(/^rte_/),
      }),
    ]);
    const json = await cli.json("route", "add", "+", "spare");
    expect(json).toEqual({
      id: expect.stringMatching(/^rte_/),
      prefix: "+",
      carrier_id: "spare",
      priority: 0,
    });

    const listed = await cli.json<Array<Record<string, unknown>>>("route", "list");
    expect(listed.filter((r) => r.carrier_id === "spare")).toEqual([
      expect.objectContaining({ prefix: "+", priority: 0, enabled: true, carrier_enabled: true }),
      expect.objectContaining({ prefix: "+4479", priority: 7, enabled: true, carrier_enabled: true }),
    ]);
    const human = await cli.run("route", "list");
    expect(human.out[0]).toMatch(/^PREFIX\s+CARRIER\s+PRIORITY\s+STATUS$/);
    expect(human.out).toContainEqual(expect.stringMatching(/^\+4479\s+spare\s+7\s+active$/));

    const removed = await cli.run("route", "remove", "+4479", "spare");
    expect(removed).toMatchObject({ code: 0, stdout: "Removed route +4479 → spare." });
    expect((await routesOf("spare")).map((r) => r.prefix)).toEqual(["+"]);
    expect(await cli.json("route", "remove", "+", "spare")).toEqual({
      prefix: "+",
      carrier_id: "spare",
      removed: true,
    });
    expect(await routesOf("spare")).toEqual([]);
  });

  it("refuses a duplicate prefix and carrier with exit code 1", async () => {
    expect((await cli.run("route", "add", "+33", "spare")).code).toBe(0);
    const again = await cli.run("route", "add", "+33", "spare", "--priority", "4");
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("error: A route +33 → spare already exists.");
    expect(await routesOf("spare")).toEqual([expect.objectContaining({ prefix: "+33", priority: 0 })]);
    await cli.run("route", "remove", "+33", "spare");
  });

  it("answers an unknown carrier or route with exit code 1", async () => {
    const unknownCarrier = await cli.run("route", "add", "+1", "nope");
    expect(unknownCarrier.code).toBe(1);
    expect(unknownCarrier.stderr).toBe("error: Carrier nope not found.");
    expect(await cli.db.prisma.route.count({ where: { carrierId: "nope" } })).toBe(0);
    const removeUnknownCarrier = await cli.run("route", "remove", "+1", "nope");
    expect(removeUnknownCarrier.code).toBe(1);
    expect(removeUnknownCarrier.stderr).toBe("error: Carrier nope not found.");
    const noSuchRoute = await cli.run("route", "remove", "+1", "spare");
    expect(noSuchRoute.code).toBe(1);
    expect(noSuchRoute.stderr).toBe("error: No route +1 → spare.");
  });

  it.each([
    ["'prefix'", ["add", "44", "spare"]],
    ["'prefix'", ["add", "+1234567890123456", "spare"]],
    ["'prefix'", ["add", "+44 ", "spare"]],
    ["'prefix'", ["add", "++", "spare"]],
    ["'prefix'", ["remove", "1", "spare"]],
    ["'carrierId'", ["add", "+1", "Spare"]],
    ["'carrierId'", ["remove", "+1", "sp are"]],
    ["--priority", ["add", "+1", "spare", "--priority", "-1"]],
    ["--priority", ["add", "+1", "spare", "--priority", "2147483648"]],
    ["--priority", ["add", "+1", "spare", "--priority", "high"]],
    ["--for", ["list", "--for", "14155550100"]],
    ["--for", ["list", "--for", "+0123"]],
    ["--for", ["list", "--for", "+1234567890123456"]],
  ])("rejects a bad %s with exit code 2 naming it (%j)", async (name, argv) => {
    const before = await cli.db.prisma.route.count();
    const result = await cli.run("route", ...argv);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(name);
    expect(await cli.db.prisma.route.count()).toBe(before);
  });
});

describe("route list --for", () => {
  beforeAll(async () => {
    for (const argv of [
      ["+", "global"],
      ["+1", "us-a", "--priority", "1"],
      ["+1", "us-b"],
      ["+1415", "sf", "--priority", "5"],
      ["+44", "uk"],
      ["+1", "sf", "--priority", "9"],
    ]) {
      expect((await cli.run("route", "add", ...argv)).code).toBe(0);
    }
  });

  type Ranked = {
    number: string;
    carriers: Array<{ carrier_id: string }>;
    skipped_disabled_carriers: string[];
  };
  const carriersFor = async (number: string) =>
    (await cli.json<Ranked>("route", "list", "--for", number)).carriers.map((c) => c.carrier_id);

  it("lists the carriers best first: longest prefix, then priority, each once", async () => {
    expect(await cli.json("route", "list", "--for", "+14155550100")).toEqual({
      number: "+14155550100",
      carriers: [
        { carrier_id: "sf", prefix: "+1415", priority: 5 },
        { carrier_id: "us-b", prefix: "+1", priority: 0 },
        { carrier_id: "us-a", prefix: "+1", priority: 1 },
        { carrier_id: "global", prefix: "+", priority: 0 },
      ],
      skipped_disabled_carriers: [],
    });
    expect(await carriersFor("+12125550100")).toEqual(["us-b", "us-a", "sf", "global"]);
    expect(await carriersFor("+447911123456")).toEqual(["uk", "global"]);
    expect(await carriersFor("+33612345678")).toEqual(["global"]);

    const human = await cli.run("route", "list", "--for", "+14155550100");
    expect(human.out).toEqual([
      "Carriers tried for +14155550100, best first:",
      "ORDER  CARRIER  PREFIX  PRIORITY",
      "1      sf       +1415   5",
      "2      us-b     +1      0",
      "3      us-a     +1      1",
      "4      global   +       0",
    ]);
  });

  it("leaves out disabled carriers, naming them, as the dispatcher does", async () => {
    await cli.run("carrier", "disable", "us-b");
    try {
      const ranked = await cli.json<Ranked>("route", "list", "--for", "+12125550100");
      expect(ranked.carriers.map((c) => c.carrier_id)).toEqual(["us-a", "sf", "global"]);
      expect(ranked.skipped_disabled_carriers).toEqual(["us-b"]);
      const human = await cli.run("route", "list", "--for", "+12125550100");
      expect(human.out.at(-1)).toBe("Skipped (carrier disabled): us-b");
      expect((await cli.run("route", "list")).out).toContainEqual(
        expect.stringMatching(/^\+1\s+us-b\s+0\s+carrier disabled$/),
      );
    } finally {
      await cli.run("carrier", "enable", "us-b");
    }
  });

  it("says when no route covers a number", async () => {
    await cli.run("route", "remove", "+", "global");
    try {
      const human = await cli.run("route", "list", "--for", "+33612345678");
      expect(human).toMatchObject({
        code: 0,
        stdout: expect.stringContaining("No enabled route covers +33612345678"),
      });
      expect(await carriersFor("+33612345678")).toEqual([]);
    } finally {
      await cli.run("route", "add", "+", "global");
    }
  });
});
