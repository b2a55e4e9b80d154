import pg from "pg";
import type { Logger } from "@sms/logger";
import { RECEIPTS_CHANNEL } from "@sms/smpp-receipts";

/**
 * Listens for "this account has new receipts" (the outbox relay's NOTIFY at its commit)
 * on a connection of its own, and passes each account id on. A lost connection is
 * opened again after `retryMs`; meanwhile the sweep still finds every receipt, later.
 */
export function listenForReceipts(
  databaseUrl: string,
  onAccount: (accountId: string) => void,
  logger: Logger,
  retryMs = 1000,
): { stop(): Promise<void> } {
  let client: pg.Client | null = null;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const retry = (reason: string) => {
    if (stopped || retryTimer) return;
    logger.warn("receipt notifications lost; listening again shortly (the sweep covers the gap)", { reason });
    client?.removeAllListeners();
    client?.end().catch(() => undefined);
    client = null;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void open();
    }, retryMs);
  };

  const open = async () => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: "smpp-server-receipts" });
    client = next;
    next.on("notification", (message) => {
      if (message.channel === RECEIPTS_CHANNEL && message.payload) onAccount(message.payload);
    });
    next.on("error", (error) => retry(String(error)));
    next.on("end", () => retry("connection ended"));
    try {
      await next.connect();
      await next.query(`LISTEN ${RECEIPTS_CHANNEL}`);
    } catch (error) {
      retry(String(error));
    }
  };
  void open();

  return {
    async stop() {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      const last = client;
      client = null;
      last?.removeAllListeners();
      last?.on("error", () => undefined);
      await last?.end().catch(() => undefined);
    },
  };
}
