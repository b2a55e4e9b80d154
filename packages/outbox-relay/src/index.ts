export {
  relayOutbox,
  startOutboxRelay,
  type RelayOptions,
  type RelayProducers,
  type RelayResult,
} from "./relay";
export { RelayMetrics } from "./metrics";
