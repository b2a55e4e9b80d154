export { SmppClient, type ClientState, type SmppClientOptions } from "./client";
export {
  CarrierBindSets,
  connectionOptions,
  type CarrierBindSetsOptions,
  type CarrierConnection,
} from "./carrier-bind-sets";
export {
  SmppServerSession,
  type BindRequest,
  type ServerResponse,
  type ServerSessionState,
  type SmppServerSessionOptions,
} from "./server-session";
export { SmppConnection, type SmppConnectionOptions } from "./connection";
export { RequestWindow } from "./window";
export { computeBackoff, type BackoffOptions } from "./backoff";
export {
  BindError,
  ConnectionLostError,
  NotBoundError,
  ResponseTimeoutError,
  SmppError,
  TurnMissedError,
  isOutcomeUnknown,
} from "./errors";
export { CommandStatus, describeStatus, isRetryableStatus, type CommandStatusName } from "./status";
export {
  CLIENT_REF_TLV_TAG,
  decodePdu,
  encodePdu,
  PduFramer,
  MAX_PDU_LENGTH,
  MAX_SHORT_MESSAGE_LENGTH,
  type FramerEvent,
  type Pdu,
  type PduFields,
} from "./codec";
export {
  EsmClass,
  INTERFACE_VERSION_34,
  type BindType,
  type DeliverSm,
  type SubmitSm,
  type SubmitSmResp,
} from "./pdu-types";
export {
  formatReceiptDate,
  formatReceiptText,
  isFinalReceiptState,
  messageIdCandidates,
  MessageState,
  parseReceipt,
  parseReceiptDate,
  parseReceiptText,
  ReceiptStat,
  stateFromStat,
  type Receipt,
  type ReceiptState,
  type ReceiptTextFields,
} from "./receipt";
