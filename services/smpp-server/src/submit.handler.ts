import type pg from "pg";
import { ApiError, isDependencyOutage } from "@sms/errors";
import { newId } from "@sms/ids";
import type { Logger } from "@sms/logger";
import type { MessageAcceptor } from "@sms/message-acceptance";
import type { RateLimiter } from "@sms/rate-limit";
import { CommandStatus, type Pdu, type ServerResponse } from "@sms/smpp";
import type { AccountDirectory, BoundAccount } from "./accounts";
import { completeGroup, failGroup, storePart, type FailedPart } from "./concatenation.sql";
import type { ServerMetrics } from "./metrics";
import { decodeText, parseSubmit, SubmitRefusal, type ParsedSubmit } from "./short-message";
import { smppStatusFor } from "./status-map";

export interface SubmitDeps {
  pool: pg.Pool;
  accounts: AccountDirectory;
  acceptor: MessageAcceptor;
  limiter: RateLimiter;
  metrics: ServerMetrics;
  logger: Logger;
  /** Receipts for the parts of a group that could not become a message. */
  onPartsFailed: (parts: FailedPart[]) => Promise<void>;
}

/**
 * submit_sm → the REST acceptance path (docs/smpp.md#submitting): rate limit (ESME_RTHROTTLED), sender
 * authorization, validation, the daily quota (counted by the acceptor), credits, persistence
 * and dispatch, then submit_sm_resp with our msg_ id. A part of a concatenated message is stored and acknowledged with
 * its own id; the part that completes the group has the whole text accepted as one message.
 */
export function createSubmitHandler(deps: SubmitDeps) {
  const { pool, accounts, acceptor, limiter, metrics, logger } = deps;
  async function acceptWhole(
    account: BoundAccount,
    submit: ParsedSubmit,
    text: string,
    record?: { registeredDelivery: number; sourceAddr: string; destinationAddr: string },
  ) {
    return acceptor.acceptOne(
      {
        id: account.id,
        senderIds: account.senderIds,
        allowedCountries: account.allowedCountries,
      },
      {
        to: submit.to,
        message: text,
        senderId: submit.sourceAddr,
        scheduledAt: submit.scheduledAt,
        validUntil: submit.validUntil,
        priority: submit.priority,
        clientRef: submit.clientRef,
      },
      "smpp",
      record,
    );
  }

  async function submitWhole(account: BoundAccount, submit: ParsedSubmit): Promise<string> {
    // The submit record (what receipts for this id need) is written in the acceptance's own statement.
    const message = await acceptWhole(account, submit, decodeText(submit.octets, submit.dataCoding), {
      registeredDelivery: submit.registeredDelivery,
      sourceAddr: submit.sourceAddr,
      destinationAddr: submit.destinationAddr,
    });
    return message.id;
  }

  async function submitPart(account: BoundAccount, submit: ParsedSubmit): Promise<string> {
    const part = submit.part!;
    const id = newId("msg");
    const concatKey = `${submit.sourceAddr}|${submit.destinationAddr}|${part.reference}`;
    const complete = await storePart(pool, {
      id,
      accountId: account.id,
      concatKey,
      seq: part.seq,
      total: part.total,
      dataCoding: submit.dataCoding,
      octets: submit.octets,
      registeredDelivery: submit.registeredDelivery,
      sourceAddr: submit.sourceAddr,
      destinationAddr: submit.destinationAddr,
    });
    if (!complete) return id;
    let messageId: string;
    try {
      // Octets joined before decoding: a UCS-2 surrogate pair or a GSM-7 escape may straddle two parts.
      const sameCoding = complete.parts.every((p) => p.dataCoding === complete.parts[0]!.dataCoding);
      const text = sameCoding
        ? decodeText(Buffer.concat(complete.parts.map((p) => p.octets)), complete.parts[0]!.dataCoding)
        : complete.parts.map((p) => decodeText(p.octets, p.dataCoding)).join("");
      messageId = (await acceptWhole(account, submit, text)).id;
    } catch (error) {
      const code = error instanceof ApiError ? error.code : "REJECTED";
      const failed = await failGroup(pool, { accountId: account.id, claimedKey: complete.claimedKey }, code);
      // This part's own answer carries the error; the earlier parts, already acknowledged, get receipts.
      await deps.onPartsFailed(failed.filter((p) => p.id !== id));
      throw error;
    }
    // The message is accepted: from here on, an error must not refuse it. Should this write fail,
    // the claimed group keeps no message id and its parts get no receipts (logged); the sweeper
    // leaves claimed groups alone, so they are never reported as refused.
    await completeGroup(pool, account.id, complete.claimedKey, messageId).catch((error: unknown) =>
      logger.error("accepted a concatenated message but could not link its parts", {
        account_id: account.id,
        message_id: messageId,
        error: String(error),
      }),
    );
    return id;
  }

  return async function handleSubmit(pdu: Pdu, accountId: string): Promise<ServerResponse> {
    try {
      const account = await accounts.get(accountId);
      if (!account || account.status !== "active") throw new ApiError("FORBIDDEN", "account is not active");
      const submit = parseSubmit(pdu);
      // Every submit_sm is a request against the per-second limit; the day's quota counts messages
      // where they are accepted (the acceptor), so a part counts once, when it completes its group.
      const decision = await limiter.check(account.id, { requestsPerSecond: account.requestsPerSecond });
      if (!decision.allowed) {
        metrics.throttled(decision.reason ?? "RATE_LIMITED");
        return { status: smppStatusFor(decision.reason ?? "RATE_LIMITED") };
      }
      const messageId = submit.part ? await submitPart(account, submit) : await submitWhole(account, submit);
      metrics.submitsAccepted.inc();
      return { fields: { message_id: messageId } };
    } catch (error) {
      if (error instanceof ApiError && error.code === "QUOTA_EXCEEDED") {
        metrics.throttled("QUOTA_EXCEEDED");
        return { status: smppStatusFor("QUOTA_EXCEEDED") };
      }
      metrics.submitsRefused.inc();
      if (error instanceof SubmitRefusal) return { status: error.status };
      if (error instanceof ApiError) return { status: smppStatusFor(error.code) };
      if (!isDependencyOutage(error))
        logger.error("submit_sm failed", { account_id: accountId, error: String(error) });
      return { status: CommandStatus.ESME_RSYSERR };
    }
  };
}
