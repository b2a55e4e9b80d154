import type pg from "pg";
import type { Logger } from "@sms/logger";
import { createAcceptance, type Acceptance } from "@sms/message-acceptance";
import { createDispatchProducer } from "@sms/queues";
import type { Redis } from "@sms/redis";

export interface QueuedBulk {
  pool: pg.Pool;
  /** A "queue" connection; the caller disconnects it. */
  connection: Redis;
  redisPrefix: string;
  accountId: string;
  total: number;
  /** The numbers are this followed by 1000, 1001, …: clear of the simulator's magic suffixes (0001–0010). */
  numberPrefix: string;
  /** Each text is this followed by the message's index. */
  text: string;
  logger: Logger;
}

/**
 * `total` messages of an account (sender id ACME) accepted as one bulk request and handed to
 * sms.dispatch, as the gateway does. Resolves with the acceptance, for the caller to close.
 */
export async function acceptQueuedBulk(bulk: QueuedBulk): Promise<Acceptance> {
  const acceptance = createAcceptance({
    pool: bulk.pool,
    producer: createDispatchProducer({ connection: bulk.connection, prefix: bulk.redisPrefix }),
    logger: bulk.logger,
    options: { maxSegments: 10, creditsPerSegment: 1 },
  });
  const items = Array.from({ length: bulk.total }, (_, i) => ({
    to: `${bulk.numberPrefix}${String(1000 + i).padStart(4, "0")}`,
    message: `${bulk.text} ${i}`,
  }));
  const result = await acceptance.acceptor.acceptBulk(
    { id: bulk.accountId, senderIds: new Set(["ACME"]) },
    { senderId: "ACME", items, maxItems: bulk.total },
  );
  expect(result.accepted).toHaveLength(bulk.total);
  await acceptance.outbox.settle();
  return acceptance;
}
