import winston from "winston";

export type Logger = winston.Logger;

/** Context fields that the logs carry, named as docs/operations.md#logs says. */
export interface LogContext {
  request_id?: string;
  account_id?: string;
  message_id?: string;
  [key: string]: unknown;
}

/** The JSON logger of one service; use `.child({request_id, ...})` to carry ids. */
export function createLogger(service: string, level = process.env.LOG_LEVEL ?? "info"): Logger {
  const logger = winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [new winston.transports.Console({ silent: process.env.LOG_SILENT === "true" })],
  });
  return skipDisabledLevels(logger);
}

/**
 * winston runs the logger's format (timestamp, JSON) on every call and only then lets the
 * transport drop a level below its own: a per-receipt `debug` cost dlr-ingest about 4 % of its
 * CPU at LOG_LEVEL=warn. Each level method now returns first when its level is off. Set on the
 * logger itself, so its children (Object.create of it) inherit the check, which reads the
 * level when called (a child's is its parent's).
 */
function skipDisabledLevels(logger: Logger): Logger {
  const methods = logger as unknown as Record<string, (...args: unknown[]) => Logger>;
  for (const level of Object.keys(logger.levels)) {
    const log = methods[level];
    if (typeof log !== "function") continue;
    methods[level] = function (this: Logger | undefined, ...args: unknown[]) {
      const self = this ?? logger;
      return self.isLevelEnabled(level) ? log.apply(self, args) : self;
    };
  }
  return logger;
}
