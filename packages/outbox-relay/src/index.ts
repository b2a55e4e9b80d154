export { relayOutbox, startOutboxRelay, type RelayProducers, type RelayResult } from "./relay";
