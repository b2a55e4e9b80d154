import type pg from "pg";
import type { DispatchProducer } from "@sms/queues";
import type { Logger } from "@sms/logger";
import { MessageAcceptor } from "./acceptor";
import { DispatchOutbox, type DispatchOutboxOptions } from "./dispatch-outbox";
import { GroupCommitter, type GroupCommitterOptions } from "./group-committer";
import type { PrepareOptions } from "./prepare";
import { SuppressionLookup } from "./suppression-lookup";

export { acceptWithinTransaction } from "./accept-in-transaction";
export { MessageAcceptor, type BulkResult, type BulkItemError, type BulkItemResult } from "./acceptor";
export { DispatchOutbox } from "./dispatch-outbox";
export { GroupCommitter, dailyQuotaUsed, secondsToUtcMidnight } from "./group-committer";
export type { OtpRow, SmppSubmitRow } from "./persist.sql";
export { normalizePhone, parseDestination, type Destination } from "./phone";
export { parseSchedule, SCHEDULE_MAX_AHEAD_MS } from "./schedule";
export { SuppressionLookup, optedOut } from "./suppression-lookup";
export {
  CLIENT_REF_MAX_LENGTH,
  prepareMessage,
  assertSenderAuthorized,
  allowedDestination,
  DEFAULT_VALIDITY_SECONDS,
  VALIDITY_MAX_SECONDS,
  VALIDITY_MIN_SECONDS,
  type AcceptingAccount,
  type MessageDraft,
  type PreparedMessage,
  type PrepareOptions,
} from "./prepare";

export interface Acceptance {
  acceptor: MessageAcceptor;
  outbox: DispatchOutbox;
  /** Stops the relay and waits for hand-offs in progress. */
  close(): Promise<void>;
}

/** Wires the acceptor, the group committer and the dispatch outbox of one process. */
export function createAcceptance(deps: {
  pool: pg.Pool;
  producer: DispatchProducer;
  logger: Logger;
  options: PrepareOptions & { committer?: GroupCommitterOptions; outbox?: DispatchOutboxOptions };
}): Acceptance {
  const outbox = new DispatchOutbox(deps.pool, deps.producer, deps.logger, deps.options.outbox);
  const committer = new GroupCommitter(deps.pool, {
    ...deps.options.committer,
    onQueued: (ids) => outbox.handOff(ids),
  });
  const acceptor = new MessageAcceptor(committer, deps.options, new SuppressionLookup(deps.pool));
  return { acceptor, outbox, close: () => outbox.stop() };
}
