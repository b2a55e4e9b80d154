export { foldMessageCounts } from "./fold";
export { countAccountHours, countPlatformStatuses, type HourCount } from "./read";
export { MESSAGE_COUNT_DELTAS_OF_ACCEPTED } from "./deltas.sql";
