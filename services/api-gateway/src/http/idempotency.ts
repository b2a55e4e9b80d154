import crypto from "node:crypto";
import type { RequestHandler, Response } from "express";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import { authOf } from "./auth";

const KEY_SHAPE = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency-Key on POSTs (docs/api.md#idempotency): the first request with a key claims it
 * (insert-if-absent, so two concurrent requests can't both run); its response is
 * stored and replayed for the same key and body within the TTL. Another body under
 * the same key, or a request while the first still runs, gets 409. A 5xx is not
 * stored: the key is released so the client can retry.
 *
 * Plain SQL on the pool, not the ORM: its query compiler cost 10-30 ms of CPU per
 * statement here, several per request, on the thread that serves every request.
 */
export function idempotency(pool: pg.Pool, ttlHours: number): RequestHandler {
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
    const auth = authOf(res);
    const where: RecordKey = [auth.account.id, auth.keyId, key];
    const requestHash = crypto
      .createHash("sha256")
      .update(`${req.method} ${req.path}\n${JSON.stringify(req.body ?? null)}`)
      .digest("hex");
    const claimed = await claim(pool, where, {
      method: req.method,
      path: req.path,
      requestHash,
      ttlHours,
    });
    if (claimed === "claimed") {
      storeBeforeAnswering(pool, res, where);
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

/** account_id, api_key_id, key: the record's primary key. */
type RecordKey = [accountId: string, apiKeyId: string, key: string];

type Existing = { requestHash: string; responseStatus: number | null; responseBody: unknown };

async function claim(
  pool: pg.Pool,
  where: RecordKey,
  record: {
    method: string;
    path: string;
    requestHash: string;
    ttlHours: number;
  },
): Promise<"claimed" | Existing> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const expiresAt = new Date(Date.now() + record.ttlHours * 3600_000);
    const inserted = await pool.query({
      name: "idempotency-claim",
      text: `INSERT INTO idempotency_records (account_id, api_key_id, key, method, path, request_hash, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
      values: [...where, record.method, record.path, record.requestHash, expiresAt],
    });
    if (inserted.rowCount === 1) return "claimed";
    const { rows } = await pool.query<{
      request_hash: string;
      response_status: number | null;
      response_body: unknown;
      expires_at: Date;
    }>({
      name: "idempotency-read",
      text: `SELECT request_hash, response_status, response_body, expires_at
             FROM idempotency_records WHERE account_id = $1 AND api_key_id = $2 AND key = $3`,
      values: where,
    });
    const existing = rows[0];
    if (!existing) continue;
    if (existing.expires_at > new Date())
      return {
        requestHash: existing.request_hash,
        responseStatus: existing.response_status,
        responseBody: existing.response_body,
      };
    await pool.query({
      name: "idempotency-drop-expired",
      text: "DELETE FROM idempotency_records WHERE account_id = $1 AND api_key_id = $2 AND key = $3 AND expires_at <= now()",
      values: where,
    });
  }
  throw new ApiError(
    "IDEMPOTENCY_CONFLICT",
    "This Idempotency-Key is being claimed by another request; retry.",
  );
}

/**
 * Stores the answer before it is sent: a client that retries the moment it has its answer
 * must get the replay, not "still in progress" (a retry racing the store after the answer
 * got 409 in a CI run). A 5xx releases the key instead. An answer not sent through
 * res.json is stored when it finishes.
 */
function storeBeforeAnswering(pool: pg.Pool, res: Response, where: RecordKey): void {
  const json = res.json.bind(res);
  let stored = false;
  const release = () =>
    pool.query({
      name: "idempotency-release",
      text: "DELETE FROM idempotency_records WHERE account_id = $1 AND api_key_id = $2 AND key = $3",
      values: where,
    });
  const store = (body: unknown) => {
    stored = true;
    const write =
      res.statusCode >= 500
        ? release()
        : pool.query({
            name: "idempotency-store",
            text: `UPDATE idempotency_records SET response_status = $4, response_body = $5::jsonb
                   WHERE account_id = $1 AND api_key_id = $2 AND key = $3`,
            values: [...where, res.statusCode, body === undefined ? null : JSON.stringify(body)],
          });
    // A response that cannot be stored (jsonb refuses a NUL echoed in an error message)
    // must not leave the key "in progress" for its whole TTL: release it.
    return write.then(
      () => undefined,
      () =>
        release().then(
          () => undefined,
          () => undefined,
        ),
    );
  };
  res.json = (value: unknown) => {
    if (stored) return json(value);
    void store(value).then(() => json(value));
    return res;
  };
  res.once("finish", () => {
    if (!stored) void store(undefined);
  });
  // A client that hangs up before the response must not leave the key claimed forever.
  res.once("close", () => {
    if (!stored && !res.writableFinished) release().catch(() => undefined);
  });
}
