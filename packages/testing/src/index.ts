export { createTestWorld, type TestWorld } from "./world";
export { waitFor } from "./wait";
export { freePort, isListening, withDatabase } from "./servers";
export { startRedisCluster, type TestRedisCluster } from "./redis-cluster";
export {
  expectCleanStop,
  launchService,
  startServiceProcess,
  terminate,
  readyzStatus,
  type ServiceProcess,
  type Termination,
} from "./service-process";
export {
  seedSendingAccount,
  seedSimulatorCarrier,
  type Queryable,
  type SimulatorCarrier,
} from "./pipeline-seed";
export { lockTableFor, waitForLockWaiter } from "./slow-database";
export { statsPool } from "./table-stats";
export {
  partitionsPlanned,
  plannedReadsOf,
  readsOf,
  tablesRead,
  type PlannedRead,
  type TableRead,
} from "./plans";
export { partitionedSince, retainedMessageWeeks } from "./partitions";
export { recordQueries, type RecordedQuery } from "./recorded-queries";
export { filesUnder, REPO_ROOT } from "./repo-files";
