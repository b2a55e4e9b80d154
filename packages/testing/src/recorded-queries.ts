import pg from "pg";

/** A statement as a pg client sent it. */
export interface RecordedQuery {
  /** The prepared statement's name, when it has one. */
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * Records every statement any pg client of this process sends (pools' clients included) until
 * `stop()`: what a test reads when it checks the statements a piece of code really made (their
 * count, their order, or their plans for the values they carried).
 */
export function recordQueries(): { queries: RecordedQuery[]; stop: () => void } {
  const queries: RecordedQuery[] = [];
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const [config, values] = args as [string | { name?: string; text?: string; values?: unknown[] }, unknown];
    if (typeof config === "string")
      queries.push({ text: config, values: Array.isArray(values) ? values : [] });
    else if (config && typeof config.text === "string")
      queries.push({
        name: config.name,
        text: config.text,
        values: config.values ?? (Array.isArray(values) ? values : []),
      });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof pg.Client.prototype.query;
  return {
    queries,
    stop() {
      pg.Client.prototype.query = original;
    },
  };
}
