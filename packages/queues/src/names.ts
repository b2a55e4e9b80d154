/** Every queue of the platform. Colons are not allowed in BullMQ queue names. */
export const QUEUES = {
  /** Messages ready for a carrier: consumed by the dispatcher. */
  smsDispatch: "sms.dispatch",
  /** Signed webhook calls: consumed by webhook-delivery. */
  webhookDeliver: "webhook.deliver",
  /** Receipts for customers bound over SMPP: consumed by smpp-server. */
  smppDlrOut: "smpp.dlr-out",
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * The BullMQ key prefix of a queue: `<deployment prefix>:{<queue>}`. The braces are a
 * Redis Cluster hash tag, so every key of one queue lands in one slot (BullMQ's Lua
 * scripts touch several keys at once) while different queues spread over the cluster.
 */
export function queuePrefix(deploymentPrefix: string, queue: QueueName): string {
  return `${deploymentPrefix}:{${queue}}`;
}
