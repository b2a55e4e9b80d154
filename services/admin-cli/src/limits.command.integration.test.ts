import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
});
afterAll(async () => {
  await cli.close();
});

describe("limits set", () => {
  it("changes only the limits given", async () => {
    const id = await cli.createAccount();
    const result = await cli.run("limits", "set", id, "--rps", "20");
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Limits of ${id}: 20 requests/s, 100 messages/s, 100000 messages/day, 10000 per batch.`,
    );

    const all = await cli.json(
      "limits",
      "set",
      id,
      "--mps",
      "5",
      "--daily-quota",
      "1000",
      "--max-batch",
      "100000",
    );
    expect(all).toEqual({
      account_id: id,
      requests_per_second: 20,
      messages_per_second: 5,
      daily_quota: 1000,
      max_batch_size: 100000,
    });
    const account = await cli.db.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(account).toMatchObject({
      requestsPerSecond: 20,
      messagesPerSecond: 5,
      dailyQuota: 1000,
      maxBatchSize: 100000,
    });
  });

  it("needs at least one limit", async () => {
    const id = await cli.createAccount();
    const result = await cli.run("limits", "set", id);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("at least one of --rps");
  });

  it.each([
    ["--max-batch", "100001", "at most 100000"],
    ["--rps", "0", "positive"],
    ["--mps", "-3", "positive"],
    ["--daily-quota", "lots", "whole number"],
    ["--daily-quota", "2147483648", "at most 2147483647"],
  ])("rejects %s %s with exit code 2 naming the option", async (option, value, problem) => {
    const id = await cli.createAccount();
    const result = await cli.run("limits", "set", id, option, value);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(option);
    expect(result.stderr).toContain(problem);
  });

  it("answers an unknown account with exit code 1", async () => {
    const result = await cli.run("limits", "set", "acc_01ARZ3NDEKTSV4RRFFQ69G5FAV", "--rps", "5");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("not found");
  });
});

describe("limits countries", () => {
  it("sets the destination countries, upper-cased and sorted, and 'all' clears them", async () => {
    const id = await cli.createAccount();
    expect(await cli.json("limits", "countries", id, "ie", "GB")).toEqual({
      account_id: id,
      allowed_countries: ["GB", "IE"],
    });
    expect((await cli.run("limits", "countries", id, "GB")).stdout).toBe(
      `${id} may send to GB (United Kingdom) only.`,
    );
    expect((await cli.run("limits", "countries", id, "all")).stdout).toBe(`${id} may send to every country.`);
    const account = await cli.db.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(account.allowedCountries).toEqual([]);
  });

  it("refuses a code that names no country, and changes nothing", async () => {
    const id = await cli.createAccount();
    const refused = await cli.run("limits", "countries", id, "GB", "XX", "USA");
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("USA, XX");
    const account = await cli.db.prisma.account.findUniqueOrThrow({ where: { id } });
    expect(account.allowedCountries).toEqual([]);
  });
});
