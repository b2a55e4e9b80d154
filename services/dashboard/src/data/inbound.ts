import type { Prisma, PrismaClient } from "@sms/db";
import { isId } from "@sms/ids";
import type { Page } from "../pagination";

const inboundListed = {
  id: true,
  from: true,
  to: true,
  text: true,
  encoding: true,
  segments: true,
  flags: true,
  receivedAt: true,
} as const;
export type InboundRow = Prisma.InboundMessageGetPayload<{ select: typeof inboundListed }>;

/** The account's numbers and one page of its inbound messages, newest first (keyset on the ULID id). */
export async function listInbound(
  prisma: PrismaClient,
  accountId: string,
  page: { cursor: unknown; size: number },
): Promise<{ numbers: string[]; page: Page<InboundRow> }> {
  const before = typeof page.cursor === "string" && isId("in", page.cursor) ? page.cursor : undefined;
  const [numbers, rows] = await Promise.all([
    prisma.inboundNumber.findMany({
      where: { accountId },
      orderBy: { number: "asc" },
      select: { number: true },
    }),
    prisma.inboundMessage.findMany({
      where: { accountId, ...(before && { id: { lt: before } }) },
      select: inboundListed,
      orderBy: { id: "desc" },
      take: page.size + 1,
    }),
  ]);
  const shown = rows.slice(0, page.size);
  const last = shown[shown.length - 1];
  return {
    numbers: numbers.map((n) => n.number),
    page: { rows: shown, next: rows.length > page.size && last ? last.id : null },
  };
}
