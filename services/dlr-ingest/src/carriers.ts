import type pg from "pg";

/** What a receiver bind needs to know about a carrier. */
export interface CarrierEndpoint {
  id: string;
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType: string;
  useTls: boolean;
  receiverBinds: number;
}

/** The enabled carriers, from the carriers table. */
export async function loadEnabledCarriers(pool: pg.Pool): Promise<CarrierEndpoint[]> {
  const { rows } = await pool.query({
    name: "dlr-enabled-carriers",
    text: `SELECT id, host, port, system_id, password, system_type, use_tls, receiver_binds
           FROM carriers WHERE enabled ORDER BY id`,
  });
  return rows.map((row) => ({
    id: row.id,
    host: row.host,
    port: row.port,
    systemId: row.system_id,
    password: row.password,
    systemType: row.system_type,
    useTls: row.use_tls,
    receiverBinds: row.receiver_binds,
  }));
}

/** True when a carrier with this id exists (enabled or not: a disabled carrier still owes receipts). */
export async function carrierExists(pool: pg.Pool, id: string): Promise<boolean> {
  const { rowCount } = await pool.query({
    name: "dlr-carrier-exists",
    text: "SELECT 1 FROM carriers WHERE id = $1",
    values: [id],
  });
  return (rowCount ?? 0) > 0;
}
