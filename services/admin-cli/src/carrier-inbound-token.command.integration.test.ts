import { hashSecretToken } from "@sms/auth";
import { startCliHarness, type CliHarness } from "./cli-harness";

let cli: CliHarness;
beforeAll(async () => {
  cli = await startCliHarness();
  const added = await cli.run(
    "carrier",
    "add",
    "posts-mo",
    "--host",
    "smpp.acme.example",
    "--port",
    "2775",
    "--system-id",
    "acme01",
    "--password",
    "secret12",
  );
  expect(added.code).toBe(0);
});
afterAll(async () => {
  await cli.close();
});

const storedHash = async () =>
  (await cli.db.prisma.carrier.findUniqueOrThrow({ where: { id: "posts-mo" } })).inboundTokenHash;

describe("carrier inbound-token", () => {
  it("prints a new token once, stores only its hash, replaces the last one and revokes it", async () => {
    const { inbound_token: token } = await cli.json<{ inbound_token: string }>(
      "carrier",
      "inbound-token",
      "posts-mo",
    );
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await storedHash()).toBe(hashSecretToken(token));
    expect((await cli.run("carrier", "show", "posts-mo")).stdout).toContain(
      "Inbound over HTTP: token issued",
    );

    const second = await cli.run("carrier", "inbound-token", "posts-mo");
    const replacement = second.stdout.split("\n")[1]!;
    expect(replacement).not.toBe(token);
    expect(await storedHash()).toBe(hashSecretToken(replacement));

    expect((await cli.run("carrier", "inbound-token", "posts-mo", "--revoke")).code).toBe(0);
    expect(await storedHash()).toBeNull();
    expect((await cli.run("carrier", "show", "posts-mo")).stdout).toContain("no token (posts refused)");
  });

  it("refuses a carrier that does not exist with exit code 1", async () => {
    const result = await cli.run("carrier", "inbound-token", "nobody");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("Carrier nobody not found.");
  });
});
