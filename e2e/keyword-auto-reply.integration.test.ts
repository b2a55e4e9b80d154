import { createLogger } from "@sms/logger";
import { DispatchOutbox } from "@sms/message-acceptance";
import { waitFor } from "@sms/testing";
import { loadDlrIngestConfig } from "@sms/dlr-ingest";
import { startDlrIngest, type RunningDlrIngest } from "@sms/dlr-ingest";
import { startDispatchWorld, type DispatchWorld } from "@sms/dispatcher/test/harness";

/**
 * Keyword auto-replies end to end over real SMPP (docs/api.md#keyword-auto-replies): a handset's
 * STOP reaches dlr-ingest on its receiver bind; the reply written in the same transaction is relayed
 * from the dispatch outbox (as the scheduler does), dispatched, and arrives at the carrier as a
 * submit_sm from the account's number to the handset.
 */
let w: DispatchWorld;
let dlr: RunningDlrIngest;
let relay: DispatchOutbox;
const NUMBER = "+14155550999";
const HANDSET = "+447911123456";

beforeAll(async () => {
  w = await startDispatchWorld({ carriers: [{ id: "sim" }] });
  await w.db.pool.query("INSERT INTO inbound_numbers (number, account_id) VALUES ($1, $2)", [
    NUMBER,
    w.accountId,
  ]);
  await w.db.pool.query("UPDATE accounts SET auto_reply_stop = $2, auto_reply_help = $3 WHERE id = $1", [
    w.accountId,
    "Acme: you will get no more messages. Reply START to resubscribe.",
    "Acme: reply STOP to unsubscribe.",
  ]);
  dlr = await startDlrIngest(
    loadDlrIngestConfig({ ...w.world.env, PORT: "0", HOST: "127.0.0.1" }),
    createLogger("dlr-ingest-test", "error"),
  );
  await waitFor(() => dlr.binds.summary().some((set) => set.bound > 0), {
    what: "dlr-ingest's receiver bind",
  });
  relay = new DispatchOutbox(w.db.pool, w.producer, createLogger("relay-test", "error"), { staleAfterMs: 0 });
  relay.startRelay(100);
});

afterAll(async () => {
  await relay?.stop();
  await dlr?.stop();
  await w?.stop();
});

async function inject(text: string, from = HANDSET) {
  const response = await fetch(`http://127.0.0.1:${w.simulator.httpPort}/inbound`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ from, to: NUMBER, text }),
  });
  expect(await response.json()).toMatchObject({ acknowledged: 1 });
}

async function submitsTo(number: string): Promise<Array<{ from: string; text: string }>> {
  const response = await fetch(
    `http://127.0.0.1:${w.simulator.httpPort}/messages?to=${encodeURIComponent(number.replace("+", ""))}`,
  );
  const { messages } = (await response.json()) as { messages: Array<{ from: string; text: string }> };
  return messages;
}

describe("keyword auto-replies", () => {
  it("answers STOP with the account's text, from the number that received it, to the handset", async () => {
    await inject("STOP");
    const submits = await waitFor(
      async () => {
        const found = await submitsTo(HANDSET);
        return found.length > 0 ? found : undefined;
      },
      { what: "the STOP auto-reply's submit_sm", timeoutMs: 15_000 },
    );
    expect(submits).toEqual([
      expect.objectContaining({
        from: NUMBER.replace("+", ""),
        text: "Acme: you will get no more messages. Reply START to resubscribe.",
      }),
    ]);
    const { rows } = await w.db.pool.query(
      "SELECT id, client_ref FROM messages WHERE account_id = $1 AND to_number = $2",
      [w.accountId, HANDSET],
    );
    expect(rows).toEqual([{ id: expect.any(String), client_ref: "auto-reply:stop" }]);
    await w.waitForStatus(rows[0].id, ["sent", "delivered"]);

    // The handset is suppressed now: its HELP is stored but never answered.
    await inject("HELP");
    await waitFor(
      async () => {
        const { rows: inbound } = await w.db.pool.query("SELECT 1 FROM inbound_messages WHERE text = 'HELP'");
        return inbound.length > 0 || undefined;
      },
      { what: "the HELP stored" },
    );
    const { rows: replies } = await w.db.pool.query(
      "SELECT client_ref FROM messages WHERE account_id = $1 AND to_number = $2",
      [w.accountId, HANDSET],
    );
    expect(replies).toEqual([{ client_ref: "auto-reply:stop" }]);
  });
});
