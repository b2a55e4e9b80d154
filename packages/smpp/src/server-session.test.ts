import { RawPeer } from "../test/raw-peer";
import { startTestServer, type TestServer } from "../test/test-server";
import { waitFor } from "@sms/testing";
import { CommandStatus } from "./status";

const bindFields = { system_id: "acme", password: "secret", interface_version: 0x34 };
const submitFields = {
  source_addr: "ACME",
  destination_addr: "+447700900123",
  data_coding: 0,
  short_message: Buffer.from("hi"),
};

describe("SmppServerSession", () => {
  let server: TestServer;
  const peers: RawPeer[] = [];
  const connect = async () => {
    const peer = await RawPeer.connect(server.port);
    peers.push(peer);
    return peer;
  };

  beforeEach(async () => {
    server = await startTestServer({
      authenticate: (bind) =>
        bind.password === "secret" ? CommandStatus.ESME_ROK : CommandStatus.ESME_RINVPASWD,
      inactivityTimeoutMs: 0,
      windowSize: 2,
    });
  });
  afterEach(async () => {
    for (const peer of peers.splice(0)) peer.close();
    await server.close();
  });

  it("rejects submit_sm before a bind with ESME_RINVBNDSTS", async () => {
    const peer = await connect();
    const response = await peer.request("submit_sm", submitFields);
    expect(response).toMatchObject({
      command: "submit_sm_resp",
      command_status: CommandStatus.ESME_RINVBNDSTS,
    });
  });

  it("rejects submit_sm on a receiver bind with ESME_RINVBNDSTS and accepts it on a transmitter", async () => {
    const receiver = await connect();
    expect((await receiver.request("bind_receiver", bindFields)).command_status).toBe(CommandStatus.ESME_ROK);
    expect((await receiver.request("submit_sm", submitFields)).command_status).toBe(
      CommandStatus.ESME_RINVBNDSTS,
    );
    const transmitter = await connect();
    expect((await transmitter.request("bind_transmitter", bindFields)).command_status).toBe(
      CommandStatus.ESME_ROK,
    );
    expect(await transmitter.request("submit_sm", submitFields)).toMatchObject({
      command_status: 0,
      message_id: expect.stringMatching(/^m\d+$/),
    });
  });

  it("refuses a wrong password and a second bind", async () => {
    const peer = await connect();
    expect((await peer.request("bind_transceiver", { ...bindFields, password: "nope" })).command_status).toBe(
      CommandStatus.ESME_RINVPASWD,
    );
    expect(server.sessions[0]?.state).toBe("open");
    expect((await peer.request("bind_transceiver", bindFields)).command_status).toBe(CommandStatus.ESME_ROK);
    expect((await peer.request("bind_transmitter", bindFields)).command_status).toBe(
      CommandStatus.ESME_RALYBND,
    );
    expect(server.sessions[0]?.state).toBe("bound_trx");
  });

  it("answers an unknown command id with generic_nack ESME_RINVCMDID and keeps the session", async () => {
    const peer = await connect();
    const unknown = Buffer.alloc(16);
    unknown.writeUInt32BE(16, 0);
    unknown.writeUInt32BE(0x00000999, 4);
    unknown.writeUInt32BE(42, 12);
    peer.socket.write(unknown);
    expect(await peer.next((pdu) => pdu.sequence_number === 42)).toMatchObject({
      command: "generic_nack",
      command_status: CommandStatus.ESME_RINVCMDID,
    });
    expect((await peer.request("enquire_link")).command).toBe("enquire_link_resp");
  });

  it("answers a submit_sm whose body does not fit its layout with generic_nack ESME_RINVCMDLEN, never a made-up submit, and keeps the session", async () => {
    const peer = await connect();
    await peer.request("bind_transceiver", bindFields);
    const header = (bodyLength: number, sequence: number) => {
      const pdu = Buffer.alloc(16);
      pdu.writeUInt32BE(16 + bodyLength, 0);
      pdu.writeUInt32BE(0x00000004, 4); // submit_sm
      pdu.writeUInt32BE(sequence, 12);
      return pdu;
    };
    // A 3-octet body (the codec read empty fields past its end: ESME_RINVDSTADR).
    peer.socket.write(Buffer.concat([header(3, 51), Buffer.from([0, 1, 1])]));
    // sm_length 255 followed by 300 octets (the codec read 255 and took the other 45 for TLVs).
    const fields = Buffer.from("\0\x01\x01ACME\0\x01\x01447700900123\0\0\0\0\0\0\x01\0\0\0", "latin1");
    const body = Buffer.concat([fields, Buffer.from([255]), Buffer.alloc(300, 0x41)]);
    peer.socket.write(Buffer.concat([header(body.length, 52), body]));
    for (const sequence of [51, 52])
      expect(await peer.next((pdu) => pdu.sequence_number === sequence)).toMatchObject({
        command: "generic_nack",
        command_status: CommandStatus.ESME_RINVCMDLEN,
      });
    // Neither reached the handler: the next good submit is the server's first ("m1").
    expect(await peer.request("submit_sm", submitFields)).toMatchObject({
      command_status: 0,
      message_id: "m1",
    });
  });

  it("answers enquire_link before and after bind", async () => {
    const peer = await connect();
    expect((await peer.request("enquire_link")).command).toBe("enquire_link_resp");
    await peer.request("bind_transceiver", bindFields);
    expect((await peer.request("enquire_link")).command_status).toBe(0);
  });

  it("destroys a session sending garbage after a generic_nack, while another session keeps working", async () => {
    const good = await connect();
    await good.request("bind_transceiver", bindFields);
    const bad = await connect();
    await bad.request("bind_transceiver", bindFields);
    bad.socket.write(Buffer.from("GET / HTTP/1.1\r\nHost: smsc\r\n\r\n"));
    expect(await bad.next((pdu) => pdu.command === "generic_nack")).toMatchObject({
      command_status: CommandStatus.ESME_RINVCMDLEN,
    });
    await bad.closed;
    await waitFor(() => server.sessions[1]?.state === "closed", { what: "bad session closed" });
    expect((await good.request("submit_sm", submitFields)).command_status).toBe(0);
    expect(server.sessions[0]?.state).toBe("bound_trx");
  });

  it("unbinds on request and closes the socket", async () => {
    const peer = await connect();
    await peer.request("bind_transmitter", bindFields);
    expect((await peer.request("unbind")).command).toBe("unbind_resp");
    await peer.closed;
    await waitFor(() => server.sessions[0]?.state === "closed", { what: "session closed" });
  });

  it("sends deliver_sm only to receiver binds and within its window", async () => {
    const peer = await connect();
    await peer.request("bind_receiver", bindFields);
    const session = server.sessions[0]!;
    const deliveries = Array.from({ length: 5 }, (_, i) =>
      session.deliver({
        source_addr: "1",
        destination_addr: "2",
        data_coding: 0,
        short_message: Buffer.from(`m${i}`),
      }),
    );
    await waitFor(() => peer.received.filter((pdu) => pdu.command === "deliver_sm").length === 2, {
      what: "two deliver_sm",
    });
    expect(session.outstanding).toBe(2);
    for (let answered = 0; answered < 5; answered++) {
      const pdu = await peer.next((candidate) => candidate.command === "deliver_sm");
      peer.send("deliver_sm_resp", {}, pdu.sequence_number);
    }
    await expect(Promise.all(deliveries)).resolves.toHaveLength(5);
  });
});

describe("SmppServerSession timeouts", () => {
  it("closes a session after the inactivity timeout and times out unanswered deliver_sm", async () => {
    const server = await startTestServer({ windowSize: 2, inactivityTimeoutMs: 300, responseTimeoutMs: 50 });
    const peer = await RawPeer.connect(server.port);
    await peer.request("bind_transceiver", bindFields);
    const session = server.sessions[0]!;
    await expect(
      session.deliver({
        source_addr: "1",
        destination_addr: "2",
        data_coding: 0,
        short_message: Buffer.from("x"),
      }),
    ).rejects.toMatchObject({
      name: "ResponseTimeoutError",
    });
    // After 300 ms of silence the session unbinds; the raw peer does not answer, so it is then closed.
    expect(await peer.next((pdu) => pdu.command === "unbind", "unbind", 3000)).toBeDefined();
    await peer.closed;
    await server.close();
  });

  it("does not count a request still being answered as inactivity (a slow bind is answered, then the timeout runs)", async () => {
    const server = await startTestServer({
      inactivityTimeoutMs: 100,
      authenticate: async () => {
        await new Promise((resolve) => setTimeout(resolve, 400));
        return CommandStatus.ESME_ROK;
      },
    });
    try {
      const peer = await RawPeer.connect(server.port);
      expect((await peer.request("bind_transceiver", bindFields)).command_status).toBe(
        CommandStatus.ESME_ROK,
      );
      expect(await peer.next((pdu) => pdu.command === "unbind", "unbind", 3000)).toBeDefined();
      peer.close();
    } finally {
      await server.close();
    }
  });
});
