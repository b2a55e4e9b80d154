import net from "node:net";
import { CommandStatus, encodePdu } from "@sms/smpp";
import { RawPeer } from "@sms/smpp/test/raw-peer";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness, type TestCustomer } from "./harness";

/**
 * The hostile-SMPP test: sockets that never bind, a loop of wrong
 * passwords for the customer's own system_id, a 16 KiB PDU sent a byte at a time, all at
 * once; meanwhile the customer binds and submits within 1 s. Other loopback addresses
 * (127.0.0.x) stand for other clients.
 */
let h: Harness;
let customer: TestCustomer;
const sockets: net.Socket[] = [];

beforeAll(async () => {
  h = await startHarness({
    SMPP_BIND_TIMEOUT_MS: "2000",
    SMPP_INACTIVITY_TIMEOUT_MS: "0",
    SMPP_MAX_CONNECTIONS_PER_ADDRESS: "20",
    BIND_ADDRESS_FREE_FAILURES: "10",
  });
  customer = await h.addCustomer();
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await h?.close();
});

/** A connection from `localAddress` that is left to itself; resolves once connected. */
function openSocket(localAddress: string): Promise<net.Socket> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: "127.0.0.1", port: h.server.smppPort, localAddress }, () =>
      resolve(socket),
    );
    socket.on("error", () => undefined);
    sockets.push(socket);
  });
}
const isClosed = (socket: net.Socket) => socket.destroyed || socket.readableEnded;

describe("hostile SMPP clients", () => {
  it("closes connections beyond SMPP_MAX_CONNECTIONS_PER_ADDRESS (20) at once", async () => {
    const opened = await Promise.all(Array.from({ length: 25 }, () => openSocket("127.0.0.20")));
    await waitFor(() => opened.filter(isClosed).length === 5, { what: "5 connections refused" });
    for (const socket of opened) socket.destroy();
  });

  it("closes a connection that has not bound within SMPP_BIND_TIMEOUT_MS, enquire_link or not", async () => {
    const peer = await RawPeer.connect(h.server.smppPort, "127.0.0.21");
    const started = Date.now();
    const keepAlive = setInterval(() => peer.isClosed || peer.send("enquire_link"), 200);
    try {
      await peer.closed;
    } finally {
      clearInterval(keepAlive);
    }
    expect(Date.now() - started).toBeGreaterThanOrEqual(1800);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(peer.received.some((pdu) => pdu.command === "enquire_link_resp")).toBe(true);
  });

  it("lets the customer bind and submit within 1 s during 100 idle sockets, a wrong-password loop and a byte-at-a-time PDU", async () => {
    // 100 sockets that never bind, from 10 addresses (10 each, under the per-address cap).
    await Promise.all(Array.from({ length: 100 }, (_, i) => openSocket(`127.0.0.${30 + (i % 10)}`)));
    let stop = false;
    let wrongBinds = 0;
    // Wrong passwords for the customer's system_id as fast as the server answers, reconnecting when closed.
    const guessing = (async () => {
      while (!stop) {
        const peer = await RawPeer.connect(h.server.smppPort, "127.0.0.50");
        try {
          while (!stop && !peer.isClosed) {
            await peer.request("bind_transceiver", {
              system_id: customer.systemId,
              password: `x${wrongBinds++}`,
              interface_version: 0x34,
            });
          }
        } catch {
          // closed under us (too many failed binds): connect again
        } finally {
          peer.close();
        }
      }
    })();
    // A 16 KiB PDU, one byte per write.
    const slow = await openSocket("127.0.0.51");
    const big = encodePdu("submit_sm", 1, {
      source_addr: "ACME",
      destination_addr: "447911123456",
      data_coding: 0,
      message_payload: Buffer.alloc(16_000, 0x61),
    });
    const trickling = (async () => {
      for (let i = 0; i < big.length && !stop && !isClosed(slow); i++) {
        slow.write(big.subarray(i, i + 1));
        if (i % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await waitFor(() => wrongBinds >= 3, { what: "the guessing loop under way" });

    try {
      const started = Date.now();
      const peer = await RawPeer.connect(h.server.smppPort);
      const bound = await peer.request("bind_transceiver", {
        system_id: customer.systemId,
        password: customer.password,
        interface_version: 0x34,
      });
      expect(bound.command_status).toBe(CommandStatus.ESME_ROK);
      const submitted = await peer.request("submit_sm", {
        source_addr: "ACME",
        destination_addr: "447911123456",
        dest_addr_ton: 1,
        data_coding: 0,
        short_message: Buffer.from("still here"),
      });
      const elapsed = Date.now() - started;
      expect(submitted.command_status).toBe(CommandStatus.ESME_ROK);
      expect(elapsed).toBeLessThan(1000);
      console.log(
        `hostile SMPP: customer bound and submitted in ${elapsed} ms (${wrongBinds} wrong binds so far)`,
      );
      peer.close();
    } finally {
      stop = true;
      await guessing;
      await trickling;
    }
  });
});
