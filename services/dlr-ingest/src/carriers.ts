import type pg from "pg";
import type { Carrier, PrismaClient } from "@sms/db";
import { openCarrierPasswords, type CarrierPasswordLogger, type SecretBox } from "@sms/secret-box";

/** What a receiver bind needs to know about a carrier (the generated Prisma type, trimmed). */
export type CarrierEndpoint = Pick<
  Carrier,
  "id" | "host" | "port" | "systemId" | "password" | "systemType" | "useTls" | "receiverBinds"
>;

/**
 * The enabled carriers, from the carriers table, with their passwords opened (sealed at rest;
 * a carrier whose password does not open with this key is left out, with an error logged: it
 * costs that carrier its receiver binds, not the others theirs).
 * A carrier in transceiver mode gets no receiver binds here: the dispatcher's transceiver binds
 * take its receipts (docs/decisions.md#transceiver-binds).
 */
export async function loadEnabledCarriers(
  prisma: PrismaClient,
  box: SecretBox,
  logger: CarrierPasswordLogger,
): Promise<CarrierEndpoint[]> {
  const rows = await prisma.carrier.findMany({
    where: { enabled: true },
    orderBy: { id: "asc" },
    select: {
      id: true,
      host: true,
      port: true,
      systemId: true,
      password: true,
      passwordSealed: true,
      systemType: true,
      useTls: true,
      receiverBinds: true,
      transceiverBinds: true,
    },
  });
  return openCarrierPasswords(box, rows, logger).map(({ transceiverBinds, ...carrier }) => ({
    ...carrier,
    receiverBinds: transceiverBinds > 0 ? 0 : carrier.receiverBinds,
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
