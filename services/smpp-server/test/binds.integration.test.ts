import { CommandStatus } from "@sms/smpp";
import { RawPeer } from "@sms/smpp/test/raw-peer";
import { waitFor } from "@sms/testing";
import { createLogger } from "@sms/logger";
import { loadSmppServerConfig } from "../src/config";
import { startSmppServer } from "../src/service";
import { startHarness, type Harness, type TestCustomer } from "./harness";

let h: Harness;
let customer: TestCustomer;
const peers: RawPeer[] = [];
const connect = async () => {
  const peer = await RawPeer.connect(h.server.smppPort);
  peers.push(peer);
  return peer;
};
const bindFields = (c: TestCustomer, password = c.password) => ({
  system_id: c.systemId,
  password,
  interface_version: 0x34,
});
const submitFields = {
  source_addr: "ACME",
  destination_addr: "447911123456",
  dest_addr_ton: 1,
  data_coding: 0,
  short_message: Buffer.from("hello"),
};

beforeAll(async () => {
  h = await startHarness({
    BIND_FAILURE_DELAY_MS: "150",
    // Every test but the throttling ones binds from 127.0.0.1: their wrong passwords must not slow the rest.
    BIND_ADDRESS_FREE_FAILURES: "100000",
    SMPP_INACTIVITY_TIMEOUT_MS: "0",
  });
  customer = await h.addCustomer({ maxBinds: 10 });
});
afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});
afterAll(() => h?.close());

describe("binds", () => {
  it.each(["bind_transmitter", "bind_receiver", "bind_transceiver"])(
    "accepts %s with the right password and answers with our system_id",
    async (command) => {
      const peer = await connect();
      const response = await peer.request(command, bindFields(customer));
      expect(response).toMatchObject({
        command: `${command}_resp`,
        command_status: 0,
        system_id: "SMSPLATFORM",
      });
    },
  );

  it("answers an unknown system_id and a wrong password alike, ESME_RINVPASWD: a bind does not tell which ids exist", async () => {
    const peer = await connect();
    const unknown = await peer.request("bind_transceiver", { ...bindFields(customer), system_id: "nobody" });
    expect(unknown.command_status).toBe(CommandStatus.ESME_RINVPASWD);
    const other = await h.addCustomer();
    const wrong = await peer.request("bind_transceiver", bindFields(other, "wrong"));
    expect(wrong.command_status).toBe(CommandStatus.ESME_RINVPASWD);
    // The session stays open and unbound: the right password still binds it.
    expect((await peer.request("bind_transceiver", bindFields(other))).command_status).toBe(
      CommandStatus.ESME_ROK,
    );
  });

  it("answers a second bind on a bound session with ESME_RALYBND", async () => {
    const peer = await connect();
    expect((await peer.request("bind_transmitter", bindFields(customer))).command_status).toBe(0);
    expect((await peer.request("bind_receiver", bindFields(customer))).command_status).toBe(
      CommandStatus.ESME_RALYBND,
    );
  });

  it("refuses a bind over the account's limit with ESME_RBINDFAIL, and takes one again once a bind closes", async () => {
    const limited = await h.addCustomer({ maxBinds: 2 });
    const [a, b, c] = [await connect(), await connect(), await connect()];
    expect((await a.request("bind_transceiver", bindFields(limited))).command_status).toBe(0);
    expect((await b.request("bind_receiver", bindFields(limited))).command_status).toBe(0);
    expect((await c.request("bind_transmitter", bindFields(limited))).command_status).toBe(
      CommandStatus.ESME_RBINDFAIL,
    );
    expect((await a.request("unbind")).command_status).toBe(0);
    await a.closed;
    await waitFor(
      async () => (await c.request("bind_transmitter", bindFields(limited))).command_status === 0,
      {
        what: "a freed bind slot",
      },
    );
  });

  it("counts the bind limit across replicas: a second smpp-server sees the first one's binds", async () => {
    const limited = await h.addCustomer({ maxBinds: 2 });
    const replica = await startSmppServer(
      loadSmppServerConfig({ ...h.world.env, PORT: "0", HOST: "127.0.0.1", SMPP_PORT: "0" }),
      createLogger("smpp-server-replica", "error"),
    );
    const onReplica = async () => {
      const peer = await RawPeer.connect(replica.smppPort);
      peers.push(peer);
      return peer;
    };
    try {
      const [a, b, c] = [await connect(), await onReplica(), await onReplica()];
      expect((await a.request("bind_transceiver", bindFields(limited))).command_status).toBe(0);
      expect((await b.request("bind_transceiver", bindFields(limited))).command_status).toBe(0);
      expect((await c.request("bind_transceiver", bindFields(limited))).command_status).toBe(
        CommandStatus.ESME_RBINDFAIL,
      );
      a.close();
      await waitFor(
        async () => (await c.request("bind_transceiver", bindFields(limited))).command_status === 0,
        {
          what: "the slot freed on the other replica",
        },
      );
    } finally {
      for (const peer of peers.splice(0)) peer.close();
      await replica.stop();
    }
  });

  it("slows wrong passwords from one address down, closes the connection after 3, and never locks the right password out", async () => {
    const victim = await h.addCustomer();
    const attacker = await RawPeer.connect(h.server.smppPort, "127.0.0.2");
    peers.push(attacker);
    const timings: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const answer = await attacker.request("bind_transceiver", bindFields(victim, `bad${i}`));
      expect(answer.command_status).toBe(CommandStatus.ESME_RINVPASWD);
      timings.push(Date.now() - started);
    }
    // BIND_FAILURE_DELAY_MS is 150 here: the wait before the check doubles per earlier failure.
    expect(timings[1]).toBeGreaterThanOrEqual(150);
    expect(timings[2]).toBeGreaterThanOrEqual(300);
    // SMPP_MAX_BIND_ATTEMPTS (3): the connection is closed after the third refusal.
    await attacker.closed;
    // The customer, from an address that has not failed, binds at once with the right password.
    const started = Date.now();
    expect((await (await connect()).request("bind_transceiver", bindFields(victim))).command_status).toBe(
      CommandStatus.ESME_ROK,
    );
    expect(Date.now() - started).toBeLessThan(1000);
    // Even from the failing address the right password binds (after the wait): slowed, not locked.
    const again = await RawPeer.connect(h.server.smppPort, "127.0.0.2");
    peers.push(again);
    expect((await again.request("bind_transceiver", bindFields(victim))).command_status).toBe(
      CommandStatus.ESME_ROK,
    );
  });

  it("counts parallel wrong binds before checking any: each waits behind the ones before it", async () => {
    const victim = await h.addCustomer();
    const attackers = await Promise.all(
      Array.from({ length: 5 }, () => RawPeer.connect(h.server.smppPort, "127.0.0.3")),
    );
    peers.push(...attackers);
    const started = Date.now();
    const answers = await Promise.all(
      attackers.map((peer, i) =>
        peer.request("bind_transceiver", bindFields(victim, `par${i}`)).then((pdu) => ({
          status: pdu.command_status,
          ms: Date.now() - started,
        })),
      ),
    );
    expect(answers.every((a) => a.status === CommandStatus.ESME_RINVPASWD)).toBe(true);
    // Waits 0, 150, 300, 600, 1200 ms before the checks: the fifth guess is not checked before 1.2 s.
    expect(Math.max(...answers.map((a) => a.ms))).toBeGreaterThanOrEqual(1200);
  });

  it("refuses binds of a suspended account", async () => {
    const suspended = await h.addCustomer();
    await h.pool.query("UPDATE accounts SET status = 'suspended' WHERE id = $1", [suspended.accountId]);
    const peer = await connect();
    expect((await peer.request("bind_transmitter", bindFields(suspended))).command_status).toBe(
      CommandStatus.ESME_RBINDFAIL,
    );
  });
});

describe("bind states and link housekeeping", () => {
  it("answers submit_sm before a bind and on a receiver bind with ESME_RINVBNDSTS", async () => {
    const peer = await connect();
    expect((await peer.request("submit_sm", submitFields)).command_status).toBe(
      CommandStatus.ESME_RINVBNDSTS,
    );
    expect(
      (await peer.request("query_sm", { message_id: "msg_x", source_addr: "ACME" })).command_status,
    ).toBe(CommandStatus.ESME_RINVBNDSTS);
    expect((await peer.request("bind_receiver", bindFields(customer))).command_status).toBe(0);
    expect((await peer.request("submit_sm", submitFields)).command_status).toBe(
      CommandStatus.ESME_RINVBNDSTS,
    );
    const count = await h.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [
      customer.accountId,
    ]);
    expect(count.rows[0].n).toBe(0);
  });

  it("answers enquire_link in any state, and generic_nack ESME_RINVCMDID for an unknown command id", async () => {
    const peer = await connect();
    expect((await peer.request("enquire_link")).command).toBe("enquire_link_resp");
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000777, 4);
    unknown.writeUInt32BE(77, 12);
    peer.socket.write(unknown);
    const nack = await peer.next((pdu) => pdu.sequence_number === 77, "generic_nack");
    expect(nack).toMatchObject({ command: "generic_nack", command_status: CommandStatus.ESME_RINVCMDID });
    expect((await peer.request("enquire_link")).command).toBe("enquire_link_resp");
  });

  it("answers a bad command_length with generic_nack ESME_RINVCMDLEN and closes the session", async () => {
    const peer = await connect();
    const bad = Buffer.alloc(16);
    bad.writeUInt32BE(8, 0);
    bad.writeUInt32BE(0x00000015, 4);
    bad.writeUInt32BE(42, 12);
    peer.socket.write(bad);
    const nack = await peer.next((pdu) => pdu.command === "generic_nack", "generic_nack");
    expect(nack.command_status).toBe(CommandStatus.ESME_RINVCMDLEN);
    await peer.closed;
  });

  it("reports itself ready and counts binds and refusals on /metrics", async () => {
    const base = `http://127.0.0.1:${h.server.port}`;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const peer = await connect();
    expect((await peer.request("bind_transceiver", bindFields(customer))).command_status).toBe(0);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(Number(/^sms_smpp_server_binds (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(1);
    expect(
      Number(/^sms_smpp_server_bind_requests_total\{outcome="refused"\} (\d+)$/m.exec(metrics)?.[1]),
    ).toBeGreaterThanOrEqual(1);
  });

  it("unbinds a customer that says nothing for the inactivity timeout", async () => {
    const quick = await startHarness({ SMPP_INACTIVITY_TIMEOUT_MS: "300" });
    try {
      const c = await quick.addCustomer();
      const peer = await RawPeer.connect(quick.server.smppPort);
      expect((await peer.request("bind_transceiver", bindFields(c))).command_status).toBe(0);
      const unbind = await peer.next((pdu) => pdu.command === "unbind", "unbind from the server", 3000);
      peer.send("unbind_resp", {}, unbind.sequence_number);
      await peer.closed;
    } finally {
      await quick.close();
    }
  });

  it("unbinds every customer cleanly on shutdown", async () => {
    const other = await startHarness();
    const c = await other.addCustomer();
    const peer = await RawPeer.connect(other.server.smppPort);
    expect((await peer.request("bind_transceiver", bindFields(c))).command_status).toBe(0);
    const closing = other.close();
    const unbind = await peer.next((pdu) => pdu.command === "unbind", "unbind from the server");
    peer.send("unbind_resp", {}, unbind.sequence_number);
    await peer.closed;
    await closing;
  });
});
