import os from "node:os";
import { createLogger, type Logger } from "@sms/logger";

export interface ServiceDefinition<C extends { LOG_LEVEL: string }> {
  /** The service's name in its logs. */
  name: string;
  /** Reads and validates the environment; throws a ConfigError naming bad settings. */
  loadConfig: () => C;
  /** Starts the service; resolves once it serves. */
  start: (config: C, logger: Logger) => Promise<{ stop(): Promise<void> }>;
  /** Backstop: exit anyway when stop() has not finished after this long (ms). @defaultValue 30000 */
  shutdownTimeoutMs?: number | ((config: C) => number);
}

/**
 * The main() of every service: config, logger, start, and on SIGTERM/SIGINT a graceful
 * stop (exit 0) bounded by a backstop timer (exit 1). A bad config or a failed start
 * exits 1 with its message.
 */
export function runService<C extends { LOG_LEVEL: string }>(definition: ServiceDefinition<C>): void {
  const main = async () => {
    const config = definition.loadConfig();
    const nice = processNice(process.env.PROCESS_NICE);
    const logger = createLogger(definition.name, config.LOG_LEVEL);
    if (nice !== undefined) {
      os.setPriority(nice);
      logger.info("CPU priority lowered", { nice });
    }
    const running: { service?: { stop(): Promise<void> } } = {};
    let stopping = false;
    let backstop: NodeJS.Timeout | undefined;
    const shutdown = (signal: string) => {
      if (stopping) {
        // Ctrl-C under `npm start` brings SIGINT from the terminal and SIGTERM from run-all: a
        // repeat must not cut the graceful stop short (with process.once the second signal's
        // default action killed the process mid-stop). The backstop bounds the stop.
        logger.info("already shutting down", { signal });
        return;
      }
      stopping = true;
      logger.info("shutting down", { signal });
      const { shutdownTimeoutMs = 30_000 } = definition;
      const backstopMs =
        typeof shutdownTimeoutMs === "function" ? shutdownTimeoutMs(config) : shutdownTimeoutMs;
      // Counted from the first signal, also when it came during start-up.
      backstop ??= setTimeout(() => process.exit(1), backstopMs).unref();
      // A signal during start-up (an orchestrator may send one any time) stops the service
      // as soon as it has started, instead of killing it half-way with the default action.
      if (!running.service) return;
      running.service.stop().then(
        () => {
          clearTimeout(backstop);
          process.exit(0);
        },
        (error: unknown) => {
          clearTimeout(backstop);
          logger.error("shutdown failed", { error });
          process.exit(1);
        },
      );
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
    // Started with an IPC channel (the tests' startServiceProcess), it stops when the channel
    // closes: its parent is gone, killed before it could stop it (a Jest worker replaced or
    // killed after a failed test), and nobody else would.
    if (process.channel) process.once("disconnect", () => shutdown("parent gone"));
    running.service = await definition.start(config, logger);
    if (stopping) {
      stopping = false;
      shutdown("signal received during start-up");
    }
  };
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

/**
 * PROCESS_NICE, 0–19: how far this process steps back when the CPU is contended. On a host
 * shared by the ingress (api-gateway, smpp-server) and the background workers, the workers
 * run at 10 (`npm start` does this): a customer's request is answered first and the workers
 * drain the backlog with what is left, instead of every process slowing alike. Containers
 * and pods get the same from CPU shares and requests.
 */
export function processNice(raw: string | undefined): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const nice = Number(raw);
  if (!/^\d+$/.test(raw) || nice > 19)
    throw new Error(
      `Invalid configuration:\n  PROCESS_NICE: an integer from 0 to 19, got ${JSON.stringify(raw)}`,
    );
  return nice;
}
