import crypto from "node:crypto";
import net from "node:net";
import { encodeGsm7 } from "@sms/sms-encoding";
import { encodePdu, PduFramer, type Pdu } from "@sms/smpp";
import { waitFor } from "@sms/testing";
import { startHarness, type Harness, type TestCustomer } from "./harness";

let h: Harness;
let customer: TestCustomer;

beforeAll(async () => {
  h = await startHarness({ SMPP_INACTIVITY_TIMEOUT_MS: "0" });
  customer = await h.addCustomer({ credits: 1_000_000, rps: 1_000_000 });
});
afterAll(() => h?.close());

const bindFields = () => ({
  system_id: customer.systemId,
  password: customer.password,
  interface_version: 0x34,
});
const submitFields = {
  source_addr: "ACME",
  destination_addr: "447911123456",
  dest_addr_ton: 1,
  data_coding: 0,
  short_message: Buffer.from(encodeGsm7("robust")),
};
const messageCount = async () =>
  (await h.pool.query("SELECT count(*)::int AS n FROM messages WHERE account_id = $1", [customer.accountId]))
    .rows[0].n;

/** A raw socket that records PDUs and when it closed. */
function rawSocket(): Promise<{ socket: net.Socket; received: Pdu[]; isClosed: () => boolean }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port: h.server.smppPort });
    const received: Pdu[] = [];
    const framer = new PduFramer();
    socket.on("data", (chunk: Buffer) => {
      for (const event of framer.push(chunk)) if (event.type === "pdu") received.push(event.pdu);
    });
    socket.on("error", () => undefined);
    let isClosed = false;
    socket.once("close", () => (isClosed = true));
    socket.once("connect", () => resolve({ socket, received, isClosed: () => isClosed }));
    socket.once("error", reject);
  });
}

/** Garbage in the shapes a broken or hostile peer sends. */
function* fuzzFrames(random: () => number): Generator<Buffer> {
  const bytes = (n: number) => crypto.randomBytes(n);
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  for (let i = 0; i < 400; i++) {
    switch (i % 6) {
      case 0:
        yield bytes(1 + Math.floor(random() * 64)); // pure noise
        break;
      case 1: {
        // A plausible header with a random command id and a random body.
        const body = bytes(Math.floor(random() * 80));
        const frame = Buffer.concat([Buffer.alloc(16), body]);
        frame.writeUInt32BE(frame.length, 0);
        frame.writeUInt32BE(pick([4, 9, 3, 0x15, 0x21, 0x80000004, 0x103, crypto.randomInt(2 ** 31)]), 4);
        frame.writeUInt32BE(i + 1, 12);
        yield frame;
        break;
      }
      case 2: {
        // A valid submit_sm with random field values.
        yield encodePdu("submit_sm", i + 1, {
          ...submitFields,
          data_coding: pick([0, 1, 3, 8, 4, 0xf0, 0x18]),
          esm_class: pick([0, 0x40, 0x43, 0xff]),
          destination_addr: pick(["447911123456", "", "+", "0".repeat(20), "abc"]),
          short_message: bytes(Math.floor(random() * 200)),
          registered_delivery: pick([0, 1, 2, 3, 0xff]),
        });
        break;
      }
      case 3: {
        // A valid PDU whose command_length lies (too long, too short, huge).
        const frame = encodePdu("enquire_link", i + 1);
        frame.writeUInt32BE(pick([0, 15, 17, 0xffffffff, 70000]), 0);
        yield frame;
        break;
      }
      case 4: {
        // submit_sm with a TLV that runs past the end of the PDU.
        const frame = encodePdu("submit_sm", i + 1, submitFields);
        const broken = Buffer.concat([frame, Buffer.from([0x04, 0x24, 0x01, 0x00, 0x41])]);
        broken.writeUInt32BE(broken.length, 0);
        yield broken;
        break;
      }
      default:
        yield encodePdu(
          pick(["submit_sm_resp", "deliver_sm", "outbind", "generic_nack", "unbind_resp"]),
          i + 1,
          {},
        );
    }
  }
}

describe("robustness", () => {
  it("survives random bytes and malformed PDUs on other sessions while a bound session keeps submitting", async () => {
    const client = await h.bind(customer, { bindType: "transceiver" });
    const before = await messageCount();
    let stop = false;
    let ok = 0;
    const steady = (async () => {
      while (!stop) {
        const response = await client.submit(submitFields);
        expect(response.command_status).toBe(0);
        ok += 1;
      }
    })();
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let attacks = 0;
    for (const frame of fuzzFrames(random)) {
      const peer = await rawSocket();
      // Half the attacks come from a bound session, where submit_sm reaches the acceptance path.
      if (attacks % 2 === 0) peer.socket.write(encodePdu("bind_transceiver", 1, bindFields()));
      peer.socket.write(frame);
      peer.socket.write(encodePdu("enquire_link", 999_999));
      // Every attack ends in an answer to the enquire_link or a closed socket, never a hang; except a
      // command_length announcing more bytes than were sent: the server rightly waits for the rest.
      const announced = frame.length >= 4 ? frame.readUInt32BE(0) : 0;
      const waitsForMore = announced >= 16 && announced <= 16384 && announced > frame.length;
      if (waitsForMore) await new Promise((resolve) => setTimeout(resolve, 20));
      else
        await waitFor(() => peer.received.some((p) => p.sequence_number === 999_999) || peer.isClosed(), {
          what: `an answer or a close after attack ${attacks}`,
          timeoutMs: 5000,
        });
      peer.socket.destroy();
      attacks += 1;
    }
    stop = true;
    await steady;
    expect(attacks).toBe(400);
    expect(ok).toBeGreaterThan(0);
    // Every fuzzed submit_sm that was accepted is a whole message; the steady ones are all there.
    expect(await messageCount()).toBeGreaterThanOrEqual(before + ok);
    const { rows } = await h.pool.query(
      `SELECT count(*)::int AS n FROM messages m WHERE account_id = $1
       AND NOT EXISTS (SELECT 1 FROM smpp_submits s WHERE s.message_id = m.id)`,
      [customer.accountId],
    );
    expect(rows[0].n).toBe(0);
    // The server still takes binds and submits.
    const fresh = await h.bind(customer, { bindType: "transmitter" });
    expect((await fresh.submit(submitFields)).command_status).toBe(0);
  });

  it("keeps its memory flat while a customer sends without reading, and loses nothing once it reads again", async () => {
    const peer = await rawSocket();
    peer.socket.write(encodePdu("bind_transceiver", 1, bindFields()));
    await waitFor(() => peer.received.some((p) => p.command === "bind_transceiver_resp"), { what: "bound" });
    peer.socket.pause(); // stops reading: our responses pile up in the kernel, then in nothing
    const before = await messageCount();
    const enquire = encodePdu("enquire_link", 2);
    const submit = encodePdu("submit_sm", 3, submitFields);
    let written = 0;
    const pump = setInterval(() => {
      // The customer's own buffer is bounded too: this test must not measure its own memory.
      while (peer.socket.writableLength < 1 << 20) {
        peer.socket.write(written % 200 === 0 ? submit : enquire);
        written += 1;
      }
    }, 2);
    try {
      // Held with nothing in the handlers: the hold is the blocked write, not the request window.
      await waitFor(() => h.server.registry.all().some((s) => s.isReadingHeld && s.pending === 0), {
        what: "the server to stop reading that customer",
        timeoutMs: 30000,
      });
      const heapAtHold = process.memoryUsage().heapUsed;
      // The kernel's socket buffers (both ends) still take what we write after each 'drain'; once they are
      // full, nothing moves: no new work is taken, the customer's writes stop, and our heap has not grown.
      let last = { stored: -1, written: -1 };
      await waitFor(
        async () => {
          const now = { stored: await messageCount(), written };
          const still = now.stored === last.stored && now.written === last.written;
          last = now;
          return still;
        },
        { what: "a standstill", timeoutMs: 45000, intervalMs: 1000 },
      );
      expect(h.server.registry.all().some((s) => s.isReadingHeld)).toBe(true);
      expect(process.memoryUsage().heapUsed - heapAtHold).toBeLessThan(32 * 1024 * 1024);
    } finally {
      clearInterval(pump);
    }
    // Reading again: every submit written is answered, and each OK answer is a stored message.
    const submitsWritten = Math.ceil(written / 200);
    peer.socket.resume();
    await waitFor(
      () => peer.received.filter((p) => p.command === "submit_sm_resp").length === submitsWritten,
      {
        what: `${submitsWritten} submit_sm_resp`,
        timeoutMs: 60000,
      },
    );
    const accepted = peer.received.filter(
      (p) => p.command === "submit_sm_resp" && p.command_status === 0,
    ).length;
    expect(accepted).toBe(submitsWritten);
    await waitFor(async () => (await messageCount()) === before + accepted, {
      what: "every accepted submit stored",
    });
    peer.socket.destroy();
  });
});
