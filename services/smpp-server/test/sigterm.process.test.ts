import crypto from "node:crypto";
import pg from "pg";
import { hashSmppPassword } from "@sms/auth";
import { newId } from "@sms/ids";
import { encodeGsm7 } from "@sms/sms-encoding";
import { SmppClient } from "@sms/smpp";
import {
  createTestWorld,
  freePort,
  terminate,
  waitFor,
  type ServiceProcess,
  type TestWorld,
  launchService,
  expectCleanStop,
} from "@sms/testing";

const TOTAL = 1500;

let world: TestWorld;
let pool: pg.Pool;
let accountId: string;
const customer = { systemId: `c${crypto.randomBytes(5).toString("hex")}`, password: "s1gterm!" };
const processes: ServiceProcess[] = [];
const clients: SmppClient[] = [];

beforeAll(async () => {
  world = await createTestWorld();
  pool = world.pool(4);
  accountId = newId("acc");
  await pool.query(
    `INSERT INTO accounts (id, name, balance, requests_per_second, messages_per_second, updated_at)
     VALUES ($1, 'smpp sigterm', 100000, 100000, 100000, now())`,
    [accountId],
  );
  await pool.query("INSERT INTO sender_ids (id, account_id, value) VALUES ($1, $2, 'ACME')", [
    newId("snd"),
    accountId,
  ]);
  await pool.query(
    "INSERT INTO smpp_credentials (system_id, account_id, password_hash, max_binds) VALUES ($1, $2, $3, 4)",
    [customer.systemId, accountId, await hashSmppPassword(customer.password)],
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  for (const service of processes) service.kill();
  await world?.destroy();
});

async function launch(): Promise<{ service: ServiceProcess; port: number; smppPort: number }> {
  const smppPort = await freePort();
  const env = { ...world.env, SMPP_PORT: String(smppPort), BIND_FAILURE_DELAY_MS: "10" };
  return { ...(await launchService("smpp-server", env, processes)), smppPort };
}

async function bind(port: number): Promise<SmppClient> {
  const client = new SmppClient({
    host: "127.0.0.1",
    port,
    systemId: customer.systemId,
    password: customer.password,
    bindType: "transmitter",
    reconnect: false,
    enquireLinkIntervalMs: 0,
    windowSize: 50,
  });
  clients.push(client);
  await client.connect();
  return client;
}

/** Submits `text`; resolves to the message id when the server answered ESME_ROK, else undefined. */
async function submit(client: SmppClient, text: string): Promise<string | undefined> {
  try {
    const response = await client.submit({
      source_addr: "ACME",
      destination_addr: "447911123456",
      dest_addr_ton: 1,
      data_coding: 0,
      short_message: Buffer.from(encodeGsm7(text)),
    } as never);
    return response.command_status === 0 ? response.message_id : undefined;
  } catch {
    return undefined; // the bind went away with the submit unanswered
  }
}

/**
 * SIGTERM to an smpp-server process while a customer submits: it stops listening, answers
 * the submits it is handling, unbinds the customer and exits 0 within 10 s. The customer
 * sends what was not answered ESME_ROK again to a fresh process. "Run twice to completion"
 * for the smpp-server is one submit stored as two messages: every text ends stored once.
 */
describe("smpp-server sent SIGTERM while a customer submits", () => {
  it("exits 0 within 10 s, unready first; every submit answered OK is stored; none stored twice after the customer resends", async () => {
    const first = await launch();
    const client = await bind(first.smppPort);
    const texts = Array.from({ length: TOTAL }, (_, i) => `smpp sigterm ${i}`);
    let answered = 0;
    const outcomes = texts.map((text) =>
      submit(client, text).then((id) => {
        if (id) answered++;
        return id;
      }),
    );
    await waitFor(() => answered >= 200, { timeoutMs: 30_000, what: "200 submits answered" });
    const stopped = await terminate(first.service, first.port);
    expectCleanStop(stopped, first.service);
    const ids = await Promise.all(outcomes);
    const accepted = ids.filter((id): id is string => id !== undefined);
    expect(accepted.length).toBeLessThan(TOTAL);
    // Nothing answered ESME_ROK is lost: each is a stored, queued message.
    const stored = await pool.query<{ id: string }>(
      "SELECT id FROM messages WHERE id = ANY($1) AND status = 'queued'",
      [accepted],
    );
    expect(stored.rows).toHaveLength(accepted.length);

    const second = await launch();
    const again = await bind(second.smppPort);
    const resent = await Promise.all(
      texts.filter((_, i) => ids[i] === undefined).map((text) => submit(again, text)),
    );
    expect(resent.every((id) => id !== undefined)).toBe(true);
    const { rows } = await pool.query<{ body: string; n: string }>(
      "SELECT body, count(*) AS n FROM messages WHERE account_id = $1 GROUP BY body",
      [accountId],
    );
    expect(rows).toHaveLength(TOTAL);
    expect(rows.filter((row) => row.n !== "1")).toEqual([]);
    console.log(
      `smpp-server: SIGTERM at ${answered} answered, ${accepted.length}/${TOTAL} accepted by the first process, exited in ${stopped.elapsedMs} ms`,
    );
  }, 120_000);
});
