export {
  createCarrierSimulator,
  type CarrierSimulator,
  type SimulatorOptions,
  type SimulatorStats,
} from "./simulator";
export { MAGIC_SUFFIXES, type OutcomeMix, type ReceiptOutcome } from "./outcomes";
export type { MessageQuery, MessageStatus, ReceivedMessage } from "./message-log";
export type { ControlUpdate, RuntimeSettings } from "./settings";
