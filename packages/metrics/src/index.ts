export { MetricsRegistry, METRIC_PREFIX } from "./registry";
export { HttpMetrics, NO_ROUTE, CLIENT_CLOSED } from "./http";
export { QueueMetrics, QUEUE_STATES, type ObservableWorker, type JobCountsSource } from "./queues";
export {
  OutboxMetrics,
  OUTBOX_COUNT_CAP,
  MessageStatusMetrics,
  MessageFlowMetrics,
  OPEN_STATUSES,
  type RelayedBatch,
} from "./messages";
export { CarrierHealthMetrics, type CarrierHealthReading } from "./carrier-health";
export { SmppMetrics, SmppServerMetrics, type CarrierBindsReading, type CarrierBindType } from "./smpp";
export { WebhookMetrics, type WebhookAttemptResult } from "./webhooks";
export { RateLimitMetrics, type RateLimitReason } from "./rate-limit";
export {
  SchedulerLoopMetrics,
  OtpSweepMetrics,
  ReceiptIngestMetrics,
  counter,
  labeledCounter,
} from "./loops";
export { metricValue } from "./read";
export { parseExposition, sampleValue, type Sample } from "./exposition";
export { serveClusterMetrics } from "./cluster";
