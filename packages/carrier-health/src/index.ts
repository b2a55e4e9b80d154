export {
  admits,
  BREAKER_STATES,
  errorRate,
  NEW_RECORD,
  nextTransition,
  type BreakerRecord,
  type BreakerSettings,
  type BreakerState,
  type BreakerTransition,
} from "./breaker";
export {
  CarrierHealthStore,
  carrierHealthKey,
  listReportedCarriers,
  readCarrierHealth,
  type CarrierHealthReport,
  type HealthStoreOptions,
  type ReplicaBinds,
} from "./store";
