import crypto from "node:crypto";

/** Anything that runs a parameterized statement: a pg Pool or Client, or @sms/db's pool. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

export interface SimulatorCarrier {
  /** The carrier simulator's SMPP port. */
  port: number;
  windowSize?: number;
  transmitterBinds?: number;
  receiverBinds?: number;
}

/**
 * The carrier "sim" at the simulator on 127.0.0.1 (system id "platform"), fast enough never
 * to throttle, and the route "+" to it: what a pipeline test needs before it sends.
 */
export async function seedSimulatorCarrier(db: Queryable, carrier: SimulatorCarrier): Promise<void> {
  await db.query(
    `INSERT INTO carriers (id, name, host, port, system_id, password, window_size, transmitter_binds, receiver_binds, submits_per_second, updated_at)
     VALUES ('sim', 'sim', '127.0.0.1', $1, 'platform', 'secret', $2, $3, $4, 100000, now())`,
    [carrier.port, carrier.windowSize ?? 50, carrier.transmitterBinds ?? 2, carrier.receiverBinds ?? 1],
  );
  await db.query("INSERT INTO routes (id, prefix, carrier_id) VALUES ('rte_all', '+', 'sim')");
}

/** An account with credits and a send rate no test reaches, and the sender id ACME. */
export async function seedSendingAccount(
  db: Queryable,
  account: { id: string; name: string },
): Promise<void> {
  await db.query(
    "INSERT INTO accounts (id, name, balance, messages_per_second, updated_at) VALUES ($1, $2, 1000000, 100000, now())",
    [account.id, account.name],
  );
  await db.query("INSERT INTO sender_ids (id, account_id, value) VALUES ($1, $2, 'ACME')", [
    `snd_${crypto.randomBytes(8).toString("hex")}`,
    account.id,
  ]);
}
