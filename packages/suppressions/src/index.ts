export { classifyOptOutKeyword, type OptOutKeyword } from "./keywords";
export { applyOptOutKeyword, optOutOnInbound, senderNumber, type OptOutOutcome } from "./opt-out";
export {
  addSuppression,
  getSuppression,
  listSuppressions,
  removeSuppression,
  type Suppression,
  type SuppressionSource,
} from "./store";
