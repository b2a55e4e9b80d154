import crypto from "node:crypto";
import type { RequestHandler, Response } from "express";
import type { PrismaClient } from "@sms/db";
import { ApiError } from "@sms/errors";
import { authOf } from "./auth";

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency-Key on POSTs (DESIGN §3): the first request with a key claims it
 * (insert-if-absent, so two concurrent requests can't both run); its response is
 * stored and replayed for the same key and body within the TTL. Another body under
 * the same key, or a request while the first still runs, gets 409. A 5xx is not
 * stored: the key is released so the client can retry.
 */
export function idempotency(prisma: PrismaClient, ttlHours: number): RequestHandler {
  return async (req, res, next) => {
    const key = req.get("idempotency-key");
    if (req.method !== "POST" || key === undefined) return next();
    if (!KEY_SHAPE.test(key)) {
      return next(
        new ApiError("VALIDATION_ERROR", "Idempotency-Key must be 1 to 255 printable ASCII characters.", {
          field: "Idempotency-Key",
        }),
      );
    }
    const accountId = authOf(res).account.id;
    const requestHash = crypto
      .createHash("sha256")
      .update(`${req.method} ${req.path}\n${JSON.stringify(req.body ?? null)}`)
      .digest("hex");
    const claimed = await claim(prisma, {
      accountId,
      key,
      method: req.method,
      path: req.path,
      requestHash,
      ttlHours,
    });
    if (claimed === "claimed") {
      storeOnFinish(prisma, res, accountId, key);
      return next();
    }
    if (claimed.requestHash !== requestHash) {
      return next(
        new ApiError(
          "IDEMPOTENCY_CONFLICT",
          "This Idempotency-Key was used with a different request; use a new key for a new request.",
        ),
      );
    }
    if (claimed.responseStatus === null) {
      return next(
        new ApiError(
          "IDEMPOTENCY_CONFLICT",
          "A request with this Idempotency-Key is still in progress; retry after it completes.",
        ),
      );
    }
    res.locals.idempotentReplay = true;
    res.setHeader("Idempotent-Replayed", "true");
    res.status(claimed.responseStatus).json(claimed.responseBody);
  };
}

type Existing = { requestHash: string; responseStatus: number | null; responseBody: unknown };

async function claim(
  prisma: PrismaClient,
  record: {
    accountId: string;
    key: string;
    method: string;
    path: string;
    requestHash: string;
    ttlHours: number;
  },
): Promise<"claimed" | Existing> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const expiresAt = new Date(Date.now() + record.ttlHours * 3600_000);
    const { count } = await prisma.idempotencyRecord.createMany({
      data: [
        {
          accountId: record.accountId,
          key: record.key,
          method: record.method,
          path: record.path,
          requestHash: record.requestHash,
          expiresAt,
        },
      ],
      skipDuplicates: true,
    });
    if (count === 1) return "claimed";
    const existing = await prisma.idempotencyRecord.findUnique({
      where: { accountId_key: { accountId: record.accountId, key: record.key } },
    });
    if (!existing) continue;
    if (existing.expiresAt > new Date()) return existing;
    await prisma.idempotencyRecord.deleteMany({
      where: { accountId: record.accountId, key: record.key, expiresAt: { lte: new Date() } },
    });
  }
  throw new ApiError(
    "IDEMPOTENCY_CONFLICT",
    "This Idempotency-Key is being claimed by another request; retry.",
  );
}

function storeOnFinish(prisma: PrismaClient, res: Response, accountId: string, key: string): void {
  const json = res.json.bind(res);
  let body: unknown;
  res.json = (value: unknown) => {
    body = value;
    return json(value);
  };
  const where = { accountId_key: { accountId, key } };
  res.once("finish", () => {
    const write =
      res.statusCode >= 500
        ? prisma.idempotencyRecord.delete({ where })
        : prisma.idempotencyRecord.update({
            where,
            data: { responseStatus: res.statusCode, responseBody: (body ?? null) as object },
          });
    // A response that cannot be stored (jsonb refuses a NUL echoed in an error message)
    // must not leave the key "in progress" for its whole TTL: release it.
    write.catch(() => prisma.idempotencyRecord.delete({ where }).catch(() => undefined));
  });
  // A client that hangs up before the response must not leave the key claimed forever.
  res.once("close", () => {
    if (!res.writableFinished) prisma.idempotencyRecord.delete({ where }).catch(() => undefined);
  });
}
