export { QUEUES, queuePrefix, type QueueName } from "./names";
export { DispatchJob, WebhookDeliverJob, SmppReceiptJob } from "./payloads";
export { openQueue, openWorker, DelayedError, type QueueContext, type Job, type Processor } from "./bullmq";
export { createDispatchProducer, type DispatchProducer } from "./dispatch.producer";
export {
  createWebhookDeliverProducer,
  createSmppReceiptProducer,
  type WebhookDeliverProducer,
  type SmppReceiptProducer,
} from "./webhook.producer";
