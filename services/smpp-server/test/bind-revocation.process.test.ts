import crypto from "node:crypto";
import pg from "pg";
import { hashSmppPassword } from "@sms/auth";
import { newId } from "@sms/ids";
import { CommandStatus } from "@sms/smpp";
import { RawPeer } from "@sms/smpp/test/raw-peer";
import {
  createTestWorld,
  freePort,
  launchService,
  waitFor,
  type ServiceProcess,
  type TestWorld,
} from "@sms/testing";

/**
 * A bind lives no longer than what it was granted on. Two smpp-server
 * processes share one database and Redis; a customer holds binds on both. Resetting or
 * removing its SMPP password, suspending the account or lowering max_binds closes the
 * affected binds on both processes (unbind, then close) within 2 s.
 */
let world: TestWorld;
let pool: pg.Pool;
const processes: ServiceProcess[] = [];
const peers: RawPeer[] = [];
let ports: number[] = [];

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(4);
  ports = await Promise.all([freePort(), freePort()]);
  await Promise.all(
    ports.map((smppPort) =>
      launchService(
        "smpp-server",
        { ...world.env, SMPP_PORT: String(smppPort), SMPP_INACTIVITY_TIMEOUT_MS: "0" },
        processes,
      ),
    ),
  );
}, 60_000);

afterAll(async () => {
  for (const peer of peers) peer.close();
  for (const service of processes) service.kill();
  await world?.destroy();
});

async function addCustomer(maxBinds = 4) {
  const accountId = newId("acc");
  const systemId = `c${crypto.randomBytes(5).toString("hex")}`;
  const password = crypto.randomBytes(4).toString("hex");
  await pool.query(
    `INSERT INTO accounts (id, name, balance, updated_at) VALUES ($1, 'revocation test', 1000, now())`,
    [accountId],
  );
  await pool.query(
    "INSERT INTO smpp_credentials (system_id, account_id, password_hash, max_binds) VALUES ($1, $2, $3, $4)",
    [systemId, accountId, await hashSmppPassword(password), maxBinds],
  );
  return { accountId, systemId, password };
}

/** A bound RawPeer that answers the server's unbind, as a well-behaved customer does. */
async function bindTo(port: number, customer: { systemId: string; password: string }): Promise<RawPeer> {
  const peer = await RawPeer.connect(port);
  peers.push(peer);
  const response = await peer.request("bind_transceiver", {
    system_id: customer.systemId,
    password: customer.password,
    interface_version: 0x34,
  });
  expect(response.command_status).toBe(CommandStatus.ESME_ROK);
  peer.socket.on("data", () => {
    const unbind = peer.received.findIndex((pdu) => pdu.command === "unbind");
    if (unbind >= 0) peer.send("unbind_resp", {}, peer.received.splice(unbind, 1)[0]!.sequence_number);
  });
  return peer;
}

/** Waits for every one of `peers` to be closed by the server; resolves to the slowest, ms after `since`. */
async function closedWithin(closing: RawPeer[], since: number): Promise<number> {
  await waitFor(() => closing.every((peer) => peer.isClosed), { timeoutMs: 5000, what: "binds closed" });
  return Date.now() - since;
}

describe("binds closed on every replica when what they were granted on changes", () => {
  it.each([
    [
      "the password is reset",
      (id: string) =>
        hashSmppPassword("n3wpass").then((hash) =>
          pool.query("UPDATE smpp_credentials SET password_hash = $2 WHERE account_id = $1", [id, hash]),
        ),
    ],
    [
      "the credentials are removed",
      (id: string) => pool.query("DELETE FROM smpp_credentials WHERE account_id = $1", [id]),
    ],
    [
      "the account is suspended",
      (id: string) => pool.query("UPDATE accounts SET status = 'suspended' WHERE id = $1", [id]),
    ],
  ])("when %s, within 2 s, on both processes", async (_what, change) => {
    const customer = await addCustomer();
    const bystander = await addCustomer();
    const bound = [await bindTo(ports[0]!, customer), await bindTo(ports[1]!, customer)];
    const others = [await bindTo(ports[0]!, bystander), await bindTo(ports[1]!, bystander)];
    const started = Date.now();
    await change(customer.accountId);
    expect(await closedWithin(bound, started)).toBeLessThan(2000);
    // Other accounts' binds stay up and working.
    for (const peer of others) expect((await peer.request("enquire_link")).command_status).toBe(0);
    expect(others.some((peer) => peer.isClosed)).toBe(false);
  });

  it("when max_binds falls from 4 to 1, the three newest binds close across both processes, the oldest stays", async () => {
    const customer = await addCustomer(4);
    const oldest = await bindTo(ports[0]!, customer);
    const newer = [
      await bindTo(ports[1]!, customer),
      await bindTo(ports[0]!, customer),
      await bindTo(ports[1]!, customer),
    ];
    const started = Date.now();
    await pool.query("UPDATE smpp_credentials SET max_binds = 1 WHERE account_id = $1", [customer.accountId]);
    expect(await closedWithin(newer, started)).toBeLessThan(2000);
    expect(oldest.isClosed).toBe(false);
    expect((await oldest.request("enquire_link")).command_status).toBe(0);
  });
});
