export { QUEUES, queuePrefix, type QueueName } from "./names";
export { DispatchJob } from "./payloads";
export { openQueue, openWorker, type QueueContext, type Job, type Processor } from "./bullmq";
export { createDispatchProducer, type DispatchProducer } from "./dispatch.producer";
