import { ApiError, type ErrorCode, type FieldError } from "@sms/errors";
import { newId } from "@sms/ids";
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

export interface BulkItemResult {
  index: number;
  message_id: string;
  to: string;
  status: "queued";
  segments: number;
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

/** The one acceptance path: REST single and bulk sends, SMPP submit_sm and OTP all go through it. */
export class MessageAcceptor {
  constructor(
    private readonly committer: GroupCommitter,
    private readonly options: PrepareOptions,
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
    await this.committer.commit({
      accountId: account.id,
      messages: [message],
      ...(smppSubmit ? { smppSubmit: { ...smppSubmit, messageId: message.id } } : {}),
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
  ): Promise<PreparedMessage> {
    const message = prepareMessage(
      account,
      draft,
      { source: "otp", batchId: null, now: new Date() },
      this.options,
    );
    await this.committer.commit({
      accountId: account.id,
      messages: [message],
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
    request: { senderId: string; items: ReadonlyArray<{ to: string; message: string }>; maxItems: number },
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
    const prepared: PreparedMessage[] = [];
    const accepted: BulkItemResult[] = [];
    const errors: BulkItemError[] = [];
    request.items.forEach((item, index) => {
      try {
        const message = prepareMessage(
          account,
          { to: item.to, message: item.message, senderId: request.senderId },
          { source: "api", batchId, now, fieldPrefix: `messages[${index}].` },
          this.options,
        );
        prepared.push(message);
        accepted.push({
          index,
          message_id: message.id,
          to: message.to,
          status: "queued",
          segments: message.segments,
        });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        errors.push({
          index,
          to: item.to,
          error: { code: error.code, message: error.message, ...(error.field ? { field: error.field } : {}) },
        });
      }
    });
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
      messages: prepared,
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
    return { batchId, accepted, errors, createdAt: now };
  }
}
