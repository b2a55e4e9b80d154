import { ApiError, type ErrorCode, type FieldError } from "@sms/errors";
import { newId } from "@sms/ids";
import type { Priority } from "@sms/queues";
import type { GroupCommitter } from "./group-committer";
import type { OtpRow, SmppSubmitRow } from "./persist.sql";
import {
  assertSenderAuthorized,
  prepareMessage,
  type AcceptingAccount,
  type MessageDraft,
  type MessageSource,
  type PrepareOptions,
  type PreparedMessage,
} from "./prepare";
import { optedOut, type SuppressionLookup } from "./suppression-lookup";

export interface BulkItemResult {
  index: number;
  message_id: string;
  to: string;
  status: "queued";
  segments: number;
  client_ref: string | null;
}

export interface BulkItemError {
  index: number;
  to: unknown;
  error: { code: ErrorCode; message: string; field?: string };
}

export interface BulkResult {
  batchId: string;
  accepted: BulkItemResult[];
  errors: BulkItemError[];
  createdAt: Date;
}

/**
 * Items of a batch prepared between two turns of the event loop. Checking a number against its
 * country's plan (libphonenumber's full metadata) costs 0.2–1 ms, so a 1,000-item batch in one
 * go held the gateway for up to a second, and every request behind it (another account's OTP)
 * waited that long for its answer (docs/fairness.md#between-accounts).
 */
export const BULK_ITEMS_PER_TURN = 50;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The one acceptance path: REST single and bulk sends, SMPP submit_sm and OTP all go through it. */
export class MessageAcceptor {
  constructor(
    private readonly committer: GroupCommitter,
    private readonly options: PrepareOptions,
    /** Refuses numbers on the account's suppression list (RECIPIENT_OPTED_OUT). @defaultValue no check */
    private readonly suppressions?: SuppressionLookup,
  ) {}

  /**
   * Validates, charges and stores one message; it is queued or scheduled when this resolves.
   * With `smppSubmit` (a submit_sm), its submit record is written in the same statement.
   */
  async acceptOne(
    account: AcceptingAccount,
    draft: MessageDraft,
    source: MessageSource = "api",
    smppSubmit?: Omit<SmppSubmitRow, "messageId">,
  ): Promise<PreparedMessage> {
    assertSenderAuthorized(account, draft.senderId);
    const message = prepareMessage(account, draft, { source, batchId: null, now: new Date() }, this.options);
    // The suppression list is checked in the commit's own statement: a lookup before it was a
    // round trip of its own on every send (docs/decisions.md#opt-out).
    await this.committer.commit({
      accountId: account.id,
      messages: [message],
      ...(smppSubmit ? { smppSubmit: { ...smppSubmit, messageId: message.id } } : {}),
      ...(this.suppressions ? { optOutField: "to" } : {}),
    });
    return message;
  }

  /**
   * Accepts the SMS of an OTP and writes the OTP row (canceling older pending OTPs of
   * the phone) in the same transaction: no OTP without its SMS, no SMS without its OTP.
   * The sender is the platform's OTP sender, so it is not checked against the account's list.
   */
  async acceptOtp(
    account: AcceptingAccount,
    draft: MessageDraft & { otpId: string },
    otp: Omit<OtpRow, "accountId" | "messageId" | "createdAt" | "id">,
    limits: { maxSegments?: number } = {},
  ): Promise<PreparedMessage> {
    const message = prepareMessage(
      account,
      draft,
      { source: "otp", batchId: null, now: new Date() },
      { ...this.options, maxSegments: Math.min(limits.maxSegments ?? Infinity, this.options.maxSegments) },
    );
    // Checked in the transaction that stores it, as a single send's is (docs/decisions.md#opt-out).
    await this.committer.commit({
      accountId: account.id,
      messages: [message],
      ...(this.suppressions ? { optOutField: "phone" } : {}),
      otp: {
        ...otp,
        id: draft.otpId,
        accountId: account.id,
        messageId: message.id,
        createdAt: message.createdAt,
      },
    });
    return message;
  }

  /**
   * Accepts the valid items of a batch and reports the others by index. The
   * credits of the accepted items are taken in one transaction: all or none.
   */
  async acceptBulk(
    account: AcceptingAccount,
    request: {
      senderId: string;
      items: ReadonlyArray<{
        to: string;
        message: string;
        priority?: Priority;
        clientRef?: string;
        validityPeriod?: number;
      }>;
      maxItems: number;
      /** The class of every item that names none; @defaultValue "bulk" */
      priority?: Priority;
      /** The reference of every item that names none. */
      clientRef?: string;
      /** The validity (seconds) of every item that names none. */
      validityPeriod?: number;
    },
  ): Promise<BulkResult> {
    if (request.items.length > request.maxItems) {
      throw new ApiError(
        "BATCH_TOO_LARGE",
        `messages has ${request.items.length} items; this account's limit is ${request.maxItems}.`,
        {
          field: "messages",
        },
      );
    }
    assertSenderAuthorized(account, request.senderId);
    const batchId = newId("bat");
    const now = new Date();
    let prepared: { index: number; message: PreparedMessage }[] = [];
    const errors: BulkItemError[] = [];
    for (const [index, item] of request.items.entries()) {
      if (index > 0 && index % BULK_ITEMS_PER_TURN === 0) await nextTurn();
      try {
        const message = prepareMessage(
          account,
          {
            to: item.to,
            message: item.message,
            senderId: request.senderId,
            priority: item.priority ?? request.priority,
            clientRef: item.clientRef ?? request.clientRef,
            validityPeriod: item.validityPeriod ?? request.validityPeriod,
          },
          { source: "api", batchId, now, fieldPrefix: `messages[${index}].` },
          this.options,
        );
        prepared.push({ index, message });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        errors.push(itemError(index, item.to, error));
      }
    }
    if (this.suppressions && prepared.length > 0) {
      // One lookup for the whole batch (docs/decisions.md#opt-out).
      const suppressed = await this.suppressions.suppressed(
        account.id,
        prepared.map((p) => p.message.to),
      );
      if (suppressed.size > 0) {
        for (const p of prepared)
          if (suppressed.has(p.message.to))
            errors.push(itemError(p.index, request.items[p.index]!.to, optedOut(`messages[${p.index}].to`)));
        prepared = prepared.filter((p) => !suppressed.has(p.message.to));
        errors.sort((a, b) => a.index - b.index);
      }
    }
    if (prepared.length === 0) {
      const details: FieldError[] = errors.slice(0, 100).map((e) => ({
        field: e.error.field ?? `messages[${e.index}]`,
        code: e.error.code,
        message: e.error.message,
      }));
      throw new ApiError(
        "VALIDATION_ERROR",
        `None of the ${request.items.length} messages is valid; see details.`,
        { field: "messages", details },
      );
    }
    await this.committer.commit({
      accountId: account.id,
      messages: prepared.map((p) => p.message),
      batch: {
        id: batchId,
        accountId: account.id,
        senderId: request.senderId,
        total: request.items.length,
        accepted: prepared.length,
        rejected: errors.length,
        createdAt: now,
      },
    });
    const accepted = prepared.map(({ index, message }): BulkItemResult => ({
      index,
      message_id: message.id,
      to: message.to,
      status: "queued",
      segments: message.segments,
      client_ref: message.clientRef ?? null,
    }));
    return { batchId, accepted, errors, createdAt: now };
  }
}

function itemError(index: number, to: unknown, error: ApiError): BulkItemError {
  return {
    index,
    to,
    error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) },
  };
}
