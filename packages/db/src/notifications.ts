import pg from "pg";

/** Options for listenForNotifications. */
export interface NotificationOptions {
  /** Shown in pg_stat_activity. */
  applicationName: string;
  /** Called each time LISTEN is in place (first time and after a reconnect): notifications sent meanwhile are lost. */
  onListening?: () => void;
  /** Called when the connection is lost, before it is opened again. */
  onLost?: (reason: string) => void;
  /** @defaultValue 1000 */
  retryMs?: number;
}

/**
 * LISTENs on a connection of its own (never a pooled one: LISTEN belongs to its session) and
 * passes each NOTIFY payload on `channels` to its handler. A lost connection is opened again
 * after `retryMs`; `onListening` tells the caller when it may have missed some.
 */
export function listenForNotifications(
  databaseUrl: string,
  channels: Record<string, (payload: string) => void>,
  options: NotificationOptions,
): { stop(): Promise<void> } {
  let client: pg.Client | null = null;
  let stopped = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const retry = (reason: string) => {
    if (stopped || retryTimer) return;
    options.onLost?.(reason);
    client?.removeAllListeners();
    client?.on("error", () => undefined);
    client?.end().catch(() => undefined);
    client = null;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      void open();
    }, options.retryMs ?? 1000);
  };

  const open = async () => {
    const next = new pg.Client({ connectionString: databaseUrl, application_name: options.applicationName });
    client = next;
    next.on("notification", (message) => {
      if (message.payload && Object.hasOwn(channels, message.channel))
        channels[message.channel]!(message.payload);
    });
    next.on("error", (error) => retry(String(error)));
    next.on("end", () => retry("connection ended"));
    try {
      await next.connect();
      for (const channel of Object.keys(channels)) await next.query(`LISTEN ${channel}`);
      if (!stopped) options.onListening?.();
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
