import { describeStatus } from "./status";

/** Base of every error this package raises. */
export class SmppError extends Error {
  override readonly name: string = "SmppError";
}

/**
 * No response came within the response timeout. The peer may or may not have acted on
 * the request: a submit that ends this way has an unknown outcome.
 */
export class ResponseTimeoutError extends SmppError {
  override readonly name = "ResponseTimeoutError";
  constructor(
    readonly command: string,
    readonly sequenceNumber: number,
    readonly timeoutMs: number,
  ) {
    super(`no ${command}_resp for sequence ${sequenceNumber} within ${timeoutMs} ms`);
  }
}

/**
 * The connection closed while the request was in flight (written, no response yet).
 * The peer may or may not have acted on it: treat a submit as "unknown outcome".
 */
export class ConnectionLostError extends SmppError {
  override readonly name = "ConnectionLostError";
  constructor(
    readonly command: string,
    readonly sequenceNumber: number,
  ) {
    super(`connection lost with ${command} sequence ${sequenceNumber} in flight`);
  }
}

/** The request was never written (not bound, closing, or the connection went while it waited): safe to send again. */
export class NotBoundError extends SmppError {
  override readonly name: string = "NotBoundError";
}

/**
 * The request was never written: its window slot or the socket came after its `notAfter`
 * (a submit paced into a second that had ended by then). Safe to send again.
 */
export class TurnMissedError extends NotBoundError {
  override readonly name = "TurnMissedError";
}

/** The peer refused our bind; `status` is its command_status (ESME_RINVPASWD, ESME_RBINDFAIL, …). */
export class BindError extends SmppError {
  override readonly name = "BindError";
  constructor(readonly status: number) {
    super(`bind refused: ${describeStatus(status)}`);
  }
}

/** True when a request may have reached the peer but we never learnt the result. */
export function isOutcomeUnknown(error: unknown): error is ResponseTimeoutError | ConnectionLostError {
  return error instanceof ResponseTimeoutError || error instanceof ConnectionLostError;
}
