import { olderThanCursor, type Prisma, type PrismaClient } from "@sms/db";
import { isId } from "@sms/ids";
import { decodeCursor, toPage, type Page } from "../pagination";

/** An OTP's status as the customer sees it: a pending OTP past its expiry is expired (as @sms/otp says). */
export function otpStatus(otp: { status: string; expiresAt: Date }, now = new Date()): string {
  return otp.status === "pending" && otp.expiresAt <= now ? "expired" : otp.status;
}

const otpListed = {
  id: true,
  phone: true,
  status: true,
  attempts: true,
  maxAttempts: true,
  messageId: true,
  expiresAt: true,
  verifiedAt: true,
  createdAt: true,
} as const;
export type OtpRow = Prisma.OtpGetPayload<{ select: typeof otpListed }>;

/** One account's OTPs, newest first: statuses only; the code exists nowhere in clear. */
export async function listOtps(
  prisma: PrismaClient,
  accountId: string,
  page: { cursor: unknown; size: number },
): Promise<Page<OtpRow>> {
  const cursor = decodeCursor(page.cursor, (id) => isId("otp", id));
  const rows = await prisma.otp.findMany({
    where: { accountId, ...(cursor && olderThanCursor("createdAt", "id", cursor)) },
    select: otpListed,
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: page.size + 1,
  });
  return toPage(rows, page.size, (row) => ({ at: row.createdAt, id: row.id }));
}
