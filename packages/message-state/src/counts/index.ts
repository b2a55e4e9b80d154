export { foldMessageCounts } from "./fold";
export { countAccountHours, countPlatformStatuses, type HourCount } from "./read";
