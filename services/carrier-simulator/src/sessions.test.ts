import { BindError, CommandStatus, MessageState, NotBoundError } from "@sms/smpp";
import { RawPeer } from "@sms/smpp/test/raw-peer";
import { waitFor } from "@sms/testing";
import { Harness, segment } from "../test/harness";

const bind = { system_id: "acme", password: "secret", interface_version: 0x34 };

describe("carrier simulator sessions", () => {
  const harness = new Harness();
  const peers: RawPeer[] = [];
  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.close();
    await harness.closeAll();
  });
  const rawPeer = async (port: number) => {
    const peer = await RawPeer.connect(port);
    peers.push(peer);
    return peer;
  };

  it("accepts only the configured accounts when some are configured", async () => {
    const simulator = await harness.simulator({ accounts: { acme: "secret" } });
    await expect(harness.client(simulator, { password: "wrong", reconnect: false })).rejects.toEqual(
      new BindError(CommandStatus.ESME_RINVPASWD),
    );
    await expect(harness.client(simulator, { systemId: "nobody", reconnect: false })).rejects.toEqual(
      new BindError(CommandStatus.ESME_RINVSYSID),
    );
    const client = await harness.client(simulator, { bindType: "transmitter" });
    expect(client.isBound).toBe(true);
  });

  it("rejects a command in the wrong bind state with 0x04 and an unknown command with generic_nack", async () => {
    const simulator = await harness.simulator();
    const peer = await rawPeer(simulator.smppPort);
    const submitFields = {
      source_addr: "A",
      destination_addr: "+447700900123",
      data_coding: 0,
      short_message: Buffer.from("x"),
    };
    expect((await peer.request("submit_sm", submitFields)).command_status).toBe(
      CommandStatus.ESME_RINVBNDSTS,
    );
    await peer.request("bind_receiver", bind);
    expect((await peer.request("submit_sm", submitFields)).command_status).toBe(
      CommandStatus.ESME_RINVBNDSTS,
    );
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000123, 4);
    unknown.writeUInt32BE(77, 12);
    peer.socket.write(unknown);
    expect(await peer.next((pdu) => pdu.sequence_number === 77)).toMatchObject({
      command: "generic_nack",
      command_status: CommandStatus.ESME_RINVCMDID,
    });
  });

  it("destroys a session that sends garbage while another keeps working", async () => {
    const simulator = await harness.simulator();
    const client = await harness.client(simulator);
    const peer = await rawPeer(simulator.smppPort);
    await peer.request("bind_transceiver", bind);
    peer.socket.write(Buffer.from("\x00\x00\x00\x14garbage garbage garbage"));
    await peer.closed;
    await waitFor(() => simulator.stats().binds.length === 1, { what: "garbage session gone" });
    expect((await client.submit(segment("+447700900123"))).command_status).toBe(CommandStatus.ESME_ROK);
  });

  it("answers query_sm with the message state", async () => {
    const simulator = await harness.simulator();
    const client = await harness.client(simulator);
    const { message_id } = await client.submit(segment("+447700900001"));
    await waitFor(() => simulator.findMessage(message_id!)?.status === "undeliverable", {
      what: "receipt acknowledged",
    });
    expect(await client.request("query_sm", { message_id, source_addr: "ACME" })).toMatchObject({
      command_status: 0,
      message_id,
      message_state: MessageState.UNDELIVERABLE,
    });
    expect(
      (await client.request("query_sm", { message_id: "nope", source_addr: "ACME" })).command_status,
    ).toBe(CommandStatus.ESME_RINVMSGID);
  });

  it("unbinds its sessions when it closes", async () => {
    const simulator = await harness.simulator();
    const client = await harness.client(simulator, { reconnect: false });
    const reasons: Array<string | undefined> = [];
    client.on("state", (_state, reason) => reasons.push(reason));
    await simulator.close();
    await waitFor(() => client.state === "closed", { what: "client closed" });
    expect(reasons).toEqual(["unbound by peer"]);
    await expect(client.submit(segment("+447700900123"))).rejects.toBeInstanceOf(NotBoundError);
  });
});
