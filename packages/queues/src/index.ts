export {
  QUEUES,
  DISPATCH_QUEUES,
  PRIORITIES,
  WEBHOOK_CLASSES,
  WEBHOOK_QUEUES,
  webhookClassOf,
  webhookClassOfPriority,
  WEBHOOK_WORKER_CLASSES,
  CLASSES_WORKED,
  type WebhookWorkerClass,
  queuePrefix,
  type QueueName,
  type Priority,
  type WebhookClass,
} from "./names";
export { DispatchJob, WebhookDeliverJob, SmppReceiptJob } from "./payloads";
export {
  openQueue,
  openWorker,
  DelayedError,
  type QueueContext,
  type Job,
  type Processor,
  type Worker,
  type WorkerOptions,
} from "./bullmq";
export {
  createDispatchProducer,
  planJobs,
  type DispatchEntry,
  type DispatchProducer,
  type DispatchProducerOptions,
  type EnqueueOptions,
} from "./dispatch.producer";
export { createDispatchClaims, type DispatchClaims } from "./dispatch-claims";
export {
  createWebhookDeliverProducer,
  createSmppReceiptProducer,
  batchDeliveries,
  webhookJobRef,
  WEBHOOK_BATCH_SIZE,
  type WebhookBatch,
  type WebhookDelivery,
  type WebhookDeliverProducer,
  type SmppReceiptProducer,
} from "./webhook.producer";
export { pendingDispatchJobs, pendingDispatchJobsOf, type PendingDispatchJob } from "./dispatch-lookup";
