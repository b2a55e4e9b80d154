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
  return winston.createLogger({
    level,
    defaultMeta: { service },
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.errors({ stack: true }),
      winston.format.json(),
    ),
    transports: [new winston.transports.Console({ silent: process.env.LOG_SILENT === "true" })],
  });
}
