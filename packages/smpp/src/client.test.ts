import net from "node:net";
import { waitFor } from "@sms/testing";
import { startTestServer, type TestServer } from "../test/test-server";
import { SmppClient, type SmppClientOptions } from "./client";
import type { Pdu } from "./codec";
import { SmppConnection } from "./connection";
import {
  ConnectionLostError,
  NotBoundError,
  ResponseTimeoutError,
  BindError,
  TurnMissedError,
} from "./errors";
import type { BindRequest } from "./server-session";
import { CommandStatus } from "./status";

const segment = {
  source_addr: "ACME",
  destination_addr: "+447700900123",
  data_coding: 0,
  short_message: Buffer.from("hello"),
};

describe("SmppClient", () => {
  let server: TestServer;
  const clients: SmppClient[] = [];
  const binds: BindRequest[] = [];
  const makeClient = (options: Partial<SmppClientOptions> = {}) => {
    const client = new SmppClient({
      host: "127.0.0.1",
      port: server.port,
      systemId: "acme",
      password: "secret",
      backoff: { initialMs: 20, maxMs: 100 },
      ...options,
    });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    binds.length = 0;
    server = await startTestServer({
      authenticate: (bind) => (
        binds.push(bind),
        bind.password === "secret" ? 0 : CommandStatus.ESME_RINVPASWD
      ),
    });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await server.close();
  });

  it("binds as SMPP 3.4 with the configured bind type and reports the state", async () => {
    const states: string[] = [];
    const client = makeClient({ bindType: "transmitter" });
    client.on("state", (state) => states.push(state));
    await client.connect();
    expect(binds).toEqual([
      expect.objectContaining({ bindType: "transmitter", systemId: "acme", interfaceVersion: 0x34 }),
    ]);
    expect(server.sessions[0]?.state).toBe("bound_tx");
    expect(await client.submit(segment)).toMatchObject({
      command: "submit_sm_resp",
      command_status: 0,
      message_id: "m1",
    });
    await client.close();
    expect(states).toEqual(["connecting", "bound", "closed"]);
    await waitFor(() => server.sessions[0]?.state === "closed", {
      what: "server session closed after unbind",
    });
  });

  it("fails connect with BindError when the bind is refused and reconnect is off", async () => {
    const client = makeClient({ password: "wrong", reconnect: false });
    await expect(client.connect()).rejects.toEqual(new BindError(CommandStatus.ESME_RINVPASWD));
    expect(client.state).toBe("closed");
  });

  it("keeps at most windowSize submits outstanding", async () => {
    let outstanding = 0;
    let maxOutstanding = 0;
    await server.close();
    server = await startTestServer({
      onRequest: async () => {
        maxOutstanding = Math.max(maxOutstanding, ++outstanding);
        await new Promise((resolve) => setImmediate(resolve));
        outstanding -= 1;
        return { fields: { message_id: "x" } };
      },
    });
    const client = makeClient({ windowSize: 7 });
    await client.connect();
    const responses = await Promise.all(Array.from({ length: 200 }, () => client.submit(segment)));
    expect(responses.every((response) => response.command_status === 0)).toBe(true);
    expect(maxOutstanding).toBe(7);
  });

  it("does not write a submit whose window slot comes after its notAfter, and frees the slot", async () => {
    const written: string[] = [];
    let answer: () => void = () => undefined;
    const firstAnswered = new Promise<void>((resolve) => (answer = resolve));
    await server.close();
    server = await startTestServer({
      onRequest: async (pdu: Pdu) => {
        const text = (pdu.short_message as Buffer).toString();
        written.push(text);
        if (written.length === 1) await firstAnswered;
        return { fields: { message_id: text } };
      },
    });
    const client = makeClient({ windowSize: 1 });
    await client.connect();
    const text = (t: string) => ({ ...segment, short_message: Buffer.from(t) });
    const first = client.submit(text("first"));
    await waitFor(() => written.length === 1, { what: "the first submit on the wire" });
    const missed = client.submit(text("missed"), 1, Date.now() + 50);
    const inTime = client.submit(text("in time"), 1, Date.now() + 60_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer();
    await expect(missed).rejects.toBeInstanceOf(TurnMissedError);
    await expect(missed).rejects.toBeInstanceOf(NotBoundError); // never written: safe to send again
    expect(await first).toMatchObject({ message_id: "first" });
    expect(await inTime).toMatchObject({ message_id: "in time" });
    expect(written).toEqual(["first", "in time"]);
  });

  it("rejects with ResponseTimeoutError when no response comes", async () => {
    await server.close();
    server = await startTestServer({ onRequest: () => new Promise(() => undefined) });
    const client = makeClient({ responseTimeoutMs: 100 });
    await client.connect();
    await expect(client.submit(segment)).rejects.toBeInstanceOf(ResponseTimeoutError);
  });

  it("rejects in-flight submits with ConnectionLostError when the connection drops, then reconnects and re-binds", async () => {
    await server.close();
    server = await startTestServer({ onRequest: () => new Promise(() => undefined) });
    const client = makeClient({ responseTimeoutMs: 30000 });
    await client.connect();
    const inFlight = [client.submit(segment), client.submit(segment)];
    await waitFor(() => client.outstanding === 2, { what: "two submits in flight" });
    server.sessions[0]!.destroy("test drops the socket");
    for (const submit of inFlight) await expect(submit).rejects.toBeInstanceOf(ConnectionLostError);
    await expect(client.submit(segment)).rejects.toBeInstanceOf(NotBoundError);
    await client.waitUntilBound(5000);
    expect(server.sessions).toHaveLength(2);
    expect(server.sessions[1]?.state).toBe("bound_trx");
  });

  it("acknowledges deliver_sm only after the handler resolves, with ESME_RX_T_APPN when it throws", async () => {
    const handled: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered = false;
    const client = makeClient({
      bindType: "transceiver",
      onDeliverSm: async (pdu) => {
        const text = pdu.short_message.toString();
        if (text === "fail") throw new Error("database down");
        entered = true;
        await gate;
        handled.push(text);
      },
    });
    await client.connect();
    const session = server.sessions[0]!;
    const first = session.deliver({
      source_addr: "1",
      destination_addr: "2",
      data_coding: 0,
      short_message: Buffer.from("receipt"),
    });
    let acknowledged = false;
    void first.then(() => (acknowledged = true));
    await waitFor(() => entered, { what: "handler running" });
    // A round trip after the handler started: a deliver_sm_resp written before it would have arrived first.
    await client.request("enquire_link");
    expect(acknowledged).toBe(false);
    release();
    expect((await first).command_status).toBe(CommandStatus.ESME_ROK);
    expect(handled).toEqual(["receipt"]);
    const failed = await session.deliver({
      source_addr: "1",
      destination_addr: "2",
      data_coding: 0,
      short_message: Buffer.from("fail"),
    });
    expect(failed.command_status).toBe(CommandStatus.ESME_RX_T_APPN);
  });

  it("refuses deliver_sm on a transmitter bind with ESME_RINVBNDSTS and says so through onDeliverSmRefused", async () => {
    // A carrier that sends receipts on the bind it took the submit on, whatever its type:
    // SmppServerSession would not, so this SMSC is a bare connection.
    const connections: SmppConnection[] = [];
    const smsc = net.createServer((socket) => {
      const connection: SmppConnection = new SmppConnection(socket, {
        windowSize: 1,
        responseTimeoutMs: 2000,
        onRequest: (pdu: Pdu) =>
          connection.respond(
            pdu,
            CommandStatus.ESME_ROK,
            pdu.command.startsWith("bind_") ? { system_id: "X" } : {},
          ),
        onClose: () => undefined,
      });
      connections.push(connection);
    });
    await new Promise<void>((resolve) => smsc.listen(0, "127.0.0.1", resolve));
    const refused: string[] = [];
    const handled: string[] = [];
    const client = makeClient({
      port: (smsc.address() as net.AddressInfo).port,
      bindType: "transmitter",
      onDeliverSm: (pdu) => void handled.push(pdu.short_message.toString()),
      onDeliverSmRefused: (pdu) => void refused.push(pdu.short_message.toString()),
    });
    await client.connect();
    const response = await connections[0]!.request(
      "deliver_sm",
      {
        source_addr: "1",
        destination_addr: "2",
        esm_class: 4,
        data_coding: 0,
        short_message: Buffer.from("r1"),
      },
      false,
    );
    expect(response.command_status).toBe(CommandStatus.ESME_RINVBNDSTS);
    expect(refused).toEqual(["r1"]);
    expect(handled).toEqual([]);
    await client.close();
    await new Promise((resolve) => smsc.close(resolve));
  });

  it("sends enquire_link while bound", async () => {
    const client = makeClient({ enquireLinkIntervalMs: 30 });
    await client.connect();
    await waitFor(() => server.commands.filter((command) => command === "enquire_link").length >= 2, {
      what: "two enquire_link",
    });
    expect(client.isBound).toBe(true);
  });
});
