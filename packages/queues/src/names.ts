/** Every queue of the platform. Colons are not allowed in BullMQ queue names. */
export const QUEUES = {
  /** OTPs and sends marked high: consumed by the dispatcher with the largest share of its slots. */
  smsDispatchHigh: "sms.dispatch.high",
  /** Single sends and SMPP submits: consumed by the dispatcher. */
  smsDispatchNormal: "sms.dispatch.normal",
  /** Bulk batches: consumed by the dispatcher with the smallest share of its slots (never none). */
  smsDispatchBulk: "sms.dispatch.bulk",
  /** Signed webhook calls of messages sent high (OTPs): consumed by webhook-delivery's high lane. */
  webhookDeliverHigh: "webhook.deliver.high",
  /** Signed webhook calls of single sends, SMPP submits, inbound messages, replays: consumed by webhook-delivery. */
  webhookDeliver: "webhook.deliver",
  /** Signed webhook calls of bulk messages (batch items): consumed by webhook-delivery beside webhook.deliver. */
  webhookDeliverBulk: "webhook.deliver.bulk",
  /** Receipts for customers bound over SMPP: consumed by smpp-server. */
  smppDlrOut: "smpp.dlr-out",
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** A message's dispatch class (docs/fairness.md): each has its own queue and dispatcher slots. */
export const PRIORITIES = ["high", "normal", "bulk"] as const;
export type Priority = (typeof PRIORITIES)[number];

/** The dispatch queue of a class. */
export const DISPATCH_QUEUES: Readonly<Record<Priority, QueueName>> = {
  high: QUEUES.smsDispatchHigh,
  normal: QUEUES.smsDispatchNormal,
  bulk: QUEUES.smsDispatchBulk,
};

/**
 * A webhook's class (docs/fairness.md#lanes): the events of a message sent `high` go on a
 * queue of their own, so another account's campaign of webhooks never stands in front of them;
 * those of a `bulk` message (a batch item) on another, worked beside `standard` (every other
 * event) with slots of its own, so a campaign's webhooks never stand in front of single sends'.
 */
export const WEBHOOK_CLASSES = ["high", "standard", "bulk"] as const;
export type WebhookClass = (typeof WEBHOOK_CLASSES)[number];

/** The webhook.deliver queue of a class. */
export const WEBHOOK_QUEUES: Readonly<Record<WebhookClass, QueueName>> = {
  high: QUEUES.webhookDeliverHigh,
  standard: QUEUES.webhookDeliver,
  bulk: QUEUES.webhookDeliverBulk,
};

/**
 * What a webhook-delivery replica is set to work (WEBHOOK_CLASSES): `high`, or `standard`, which
 * works every other class, `bulk` included, each on its own queue with its own slots. No setting
 * names `bulk` alone: a replica set to `standard` before bulk webhooks had a queue of their own
 * keeps taking every event it took.
 */
export const WEBHOOK_WORKER_CLASSES = ["high", "standard"] as const;
export type WebhookWorkerClass = (typeof WEBHOOK_WORKER_CLASSES)[number];

/** The classes (queues) a replica works for each value of WEBHOOK_CLASSES. */
export const CLASSES_WORKED: Readonly<Record<WebhookWorkerClass, readonly WebhookClass[]>> = {
  high: ["high"],
  standard: ["standard", "bulk"],
};

/** The class of the webhooks of a message of `priority` (null: an event of no message, message.received). */
export function webhookClassOfPriority(priority: string | null): WebhookClass {
  return priority === "high" ? "high" : priority === "bulk" ? "bulk" : "standard";
}

/** The class of a job: high, bulk, or standard when it is neither. */
export function webhookClassOf(of: { high?: boolean | undefined; bulk?: boolean | undefined }): WebhookClass {
  return of.high ? "high" : of.bulk ? "bulk" : "standard";
}

/**
 * The BullMQ key prefix of a queue: `<deployment prefix>:{<queue>}`. The braces are a
 * Redis Cluster hash tag, so every key of one queue lands in one slot (BullMQ's Lua
 * scripts touch several keys at once) while different queues spread over the cluster.
 */
export function queuePrefix(deploymentPrefix: string, queue: QueueName): string {
  return `${deploymentPrefix}:{${queue}}`;
}
