import crypto from "node:crypto";
import type pg from "pg";
import { ApiError } from "@sms/errors";
import { isId, newId } from "@sms/ids";
import {
  allowedDestination,
  assertSenderAuthorized,
  parseDestination,
  type MessageAcceptor,
} from "@sms/message-acceptance";
import type { SecretBox } from "@sms/secret-box";
import { generateCode, hashCode } from "./code";
import { checkCode, findOtp, type OtpRecord, type OtpStatus } from "./otp.sql";
import { sealOtpText } from "./sealed-text";
import type { PumpingGuard } from "./pumping-guard";
import type { SendLimiter } from "./send-limit";
import { checkTemplate, DEFAULT_TEMPLATE, redactTemplate, renderTemplate } from "./template";

export interface OtpOptions {
  /** Server-side secret of the code HMACs (OTP_HMAC_SECRET). */
  hmacSecret: string;
  /** Wrong codes an OTP takes before it fails (docs/otp.md#limits) @defaultValue 5 */
  maxAttempts: number;
  /** Shared sender id of OTP messages (the platform's, not checked against the account's list). @defaultValue "Verify" */
  senderId: string;
}

export interface SendOtpRequest {
  phone: string;
  /** Digits of the code, 4 to 8. @defaultValue 6 */
  length?: number;
  /** Lifetime in seconds, 30 to 3600. @defaultValue 300 */
  expiry?: number;
  /** Text with `{code}` exactly once. @defaultValue DEFAULT_TEMPLATE */
  template?: string;
  /** One of the account's authorized sender ids. @defaultValue the shared OTP sender */
  sender_id?: string;
}

/**
 * Under the shared sender the text is the platform's voice: one segment, so it stays a code
 * and not a free-text channel any tenant can fill under our name.
 */
const SHARED_SENDER_MAX_SEGMENTS = 1;

export interface OtpView {
  otp_id: string;
  status: OtpStatus;
  phone: string;
  length: number;
  attempts_remaining: number;
  expires_at: string;
  verified_at: string | null;
  created_at: string;
  message_id: string;
}

export interface VerifyResult {
  otp_id: string;
  verified: boolean;
  status: OtpStatus;
  attempts_remaining: number;
}

const notFound = () => new ApiError("NOT_FOUND", "No OTP with this otp_id exists for this account.");

/** OTPs whose phone this process remembers (~60 bytes each): the most recent, oldest out first. */
const KNOWN_PHONES = 100_000;

/** Sends and verifies OTPs for the gateway: synchronous answers, the SMS through the normal pipeline. */
export class OtpService {
  /**
   * otp id → phone of OTPs this process sent or read. The HMAC of a guess is bound to the
   * phone, so without it a verify must read the OTP first; with it, the counting UPDATE alone
   * decides (one statement instead of two). An id's phone never changes, and the UPDATE still
   * matches on the account, so a remembered phone decides nothing the database would not.
   */
  private readonly phones = new Map<string, string>();

  constructor(
    private readonly deps: {
      pool: pg.Pool;
      acceptor: MessageAcceptor;
      limiter: SendLimiter;
      box: SecretBox;
      /** @defaultValue no pumping guard */
      pumping?: PumpingGuard;
      /** Told of each OTP the pumping guard refused (for the alert metric). */
      onPumpingRefused?: (refused: {
        accountId: string;
        destinationPrefix: string;
        country: string | undefined;
      }) => void;
    },
    private readonly options: OtpOptions,
  ) {}

  /** Generates a code, stores its HMAC and accepts the SMS; a newer OTP cancels the phone's pending one. */
  async send(
    accountId: string,
    request: SendOtpRequest,
    limits: {
      senderIds?: ReadonlySet<string>;
      allowedCountries?: ReadonlySet<string>;
    } = {},
  ) {
    const senderIds = limits.senderIds ?? new Set<string>();
    const account = {
      id: accountId,
      senderIds,
      allowedCountries: limits.allowedCountries,
    };
    const phone = allowedDestination(account, request.phone, "phone");
    const length = request.length ?? 6;
    const expiry = request.expiry ?? 300;
    const template = request.template ?? DEFAULT_TEMPLATE;
    checkTemplate(template);
    if (request.sender_id !== undefined) assertSenderAuthorized(account, request.sender_id);
    const isSharedSender = request.sender_id === undefined;
    const decision = await this.deps.limiter.take(accountId, phone);
    if (!decision.allowed) {
      throw new ApiError(
        "OTP_SEND_LIMIT",
        `Too many OTPs were sent to this phone recently; retry in ${decision.retryAfterSeconds} s.`,
        { field: "phone", retryAfterSeconds: decision.retryAfterSeconds },
      );
    }
    const pumping = await this.takePumping(accountId, phone).catch(async (error: unknown) => {
      await this.deps.limiter.release(accountId, phone, decision.token).catch(() => undefined);
      throw error;
    });
    const otpId = newId("otp");
    const code = generateCode(length);
    const text = renderTemplate(template, code);
    const expiresAt = new Date(Date.now() + expiry * 1000);
    try {
      const message = await this.deps.acceptor.acceptOtp(
        account,
        {
          to: phone,
          message: text,
          senderId: request.sender_id ?? this.options.senderId,
          storedBody: redactTemplate(template, length),
          sealedBody: sealOtpText(this.deps.box, otpId, text),
          otpId,
          // A code is worth nothing once it expires: the SMS is valid as long as the code (docs/messages.md#validity).
          validUntil: expiresAt,
        },
        {
          phone,
          codeHmac: hashCode(this.options.hmacSecret, otpId, phone, code),
          length,
          maxAttempts: this.options.maxAttempts,
          expiresAt,
        },
        { maxSegments: isSharedSender ? SHARED_SENDER_MAX_SEGMENTS : undefined },
      );
      this.remember(otpId, phone);
      return {
        otp_id: otpId,
        status: "pending" as const,
        phone,
        length,
        expires_at: expiresAt.toISOString(),
        message_id: message.id,
      };
    } catch (error) {
      await this.deps.limiter.release(accountId, phone, decision.token).catch(() => undefined);
      if (pumping) await this.deps.pumping?.release(accountId, phone, pumping).catch(() => undefined);
      // The text is the rendered template: a too-long text is the template's fault.
      if (error instanceof ApiError && error.field === "message") {
        const hint = isSharedSender
          ? " (one segment under the shared sender; send with your own sender_id for more)"
          : "";
        throw new ApiError(error.code, error.message.replace(/^message/, "template") + hint, {
          field: "template",
        });
      }
      throw error;
    }
  }

  /** Checks one code: 200 for a checked code (right or wrong), an ApiError for an OTP not open to guesses. */
  async verify(accountId: string, otpId: string, code: string): Promise<VerifyResult> {
    if (!isId("otp", otpId)) throw notFound();
    const knownPhone = this.phones.get(otpId);
    if (knownPhone === undefined) {
      const otp = await findOtp(this.deps.pool, accountId, otpId);
      if (!otp) throw notFound();
      this.remember(otp.id, otp.phone);
      if (effectiveStatus(otp) !== "pending") throw closedError(otp);
    }
    const phone = knownPhone ?? this.phones.get(otpId)!;
    const codeHmac = hashCode(this.options.hmacSecret, otpId, phone, code);
    const checked = await checkCode(this.deps.pool, accountId, otpId, codeHmac, crypto.randomBytes(32));
    if (!checked) {
      // Not open to guesses (any more): closed, expired, or another request closed it since; or,
      // with a remembered phone, not this account's. Read it for the precise answer.
      const now = await findOtp(this.deps.pool, accountId, otpId);
      if (!now) throw notFound();
      throw closedError(now);
    }
    if (checked.status === "verified")
      await this.deps.pumping?.verified(accountId, phone).catch(() => undefined);
    return {
      otp_id: otpId,
      verified: checked.status === "verified",
      status: checked.status,
      attempts_remaining: Math.max(0, checked.maxAttempts - checked.attempts),
    };
  }

  /** The pumping guard's token for this send, or OTP_SEND_LIMIT for a range that looks pumped. */
  private async takePumping(accountId: string, phone: string): Promise<string | undefined> {
    if (!this.deps.pumping) return undefined;
    const decision = await this.deps.pumping.take(accountId, phone);
    if (decision.allowed) return decision.token;
    this.deps.onPumpingRefused?.({
      accountId,
      destinationPrefix: decision.destinationPrefix,
      country: parseDestination(phone).country,
    });
    throw new ApiError(
      "OTP_SEND_LIMIT",
      `OTPs to numbers starting ${decision.destinationPrefix} are paused for this account: ` +
        `${decision.sends} were sent in the last hour and ${decision.verified} verified, which looks like SMS pumping.`,
      { field: "phone", retryAfterSeconds: 600 },
    );
  }

  private remember(otpId: string, phone: string): void {
    if (this.phones.size >= KNOWN_PHONES) this.phones.delete(this.phones.keys().next().value!);
    this.phones.set(otpId, phone);
  }

  /** The status of an OTP, never its code. */
  async get(accountId: string, otpId: string): Promise<OtpView> {
    if (!isId("otp", otpId)) throw notFound();
    const otp = await findOtp(this.deps.pool, accountId, otpId);
    if (!otp) throw notFound();
    return {
      otp_id: otp.id,
      status: effectiveStatus(otp),
      phone: otp.phone,
      length: otp.length,
      attempts_remaining: Math.max(0, otp.maxAttempts - otp.attempts),
      expires_at: otp.expiresAt.toISOString(),
      verified_at: otp.verifiedAt?.toISOString() ?? null,
      created_at: otp.createdAt.toISOString(),
      message_id: otp.messageId,
    };
  }
}

/** A pending OTP past its expiry is expired, whether or not the otp-sweeper has marked it yet. */
export function effectiveStatus(otp: Pick<OtpRecord, "status" | "expiresAt">, now = new Date()): OtpStatus {
  return otp.status === "pending" && otp.expiresAt <= now ? "expired" : otp.status;
}

function closedError(otp: OtpRecord): ApiError {
  switch (effectiveStatus(otp)) {
    case "verified":
      return new ApiError("OTP_ALREADY_VERIFIED", "This OTP was already verified; a code works once.", {
        field: "otp_id",
      });
    case "failed": {
      const retryAfterSeconds = Math.max(1, Math.ceil((otp.expiresAt.getTime() - Date.now()) / 1000));
      return new ApiError(
        "OTP_MAX_ATTEMPTS",
        `Too many wrong codes: this OTP is locked for good; send a new one.`,
        { field: "otp_id", retryAfterSeconds },
      );
    }
    case "canceled":
      return new ApiError("OTP_EXPIRED", "This OTP was replaced by a newer one sent to the same phone.", {
        field: "otp_id",
      });
    default:
      return new ApiError("OTP_EXPIRED", "This OTP has expired; send a new one.", { field: "otp_id" });
  }
}
