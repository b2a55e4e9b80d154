// CPU per message of every process taking part in a bench run, from /proc: named processes,
// the PostgreSQL backends of the run's database (followed while the run goes on: a backend
// that ends before the last reading still counts up to its last one), PostgreSQL's server-wide
// background processes, and redis-server (INFO cpu: the whole server).
import { Redis } from "ioredis";
import type pg from "pg";
import { cpuSecondsOf } from "./load-generator";

export interface CpuMeter {
  /** Reads the PostgreSQL backends again (call it every second or so while the run goes on). */
  sample(): Promise<void>;
  /** Seconds of CPU per part since the meter started, in the order the parts were given. */
  stop(): Promise<Array<[string, number]>>;
}

/**
 * `processes` label → pid (or a function of its own, e.g. this process's `process.cpuUsage()`);
 * `db` reads pg_stat_activity of its own database and is not counted (its backend is excluded).
 */
export async function startCpuMeter(options: {
  processes: Array<[string, number | (() => number)]>;
  /** Absent: no PostgreSQL parts (a run that does not use it, e.g. Kannel's). */
  db?: pg.Client;
  /** Absent: no Redis part. */
  redisUrl?: string;
}): Promise<CpuMeter> {
  const redis = options.redisUrl ? new Redis(options.redisUrl, { lazyConnect: true }) : undefined;
  await redis?.connect();
  const redisSeconds = async () => {
    if (!redis) return 0;
    const info = await redis.info("cpu");
    const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? NaN);
    return field("used_cpu_user") + field("used_cpu_sys");
  };
  const read = (source: number | (() => number)) =>
    typeof source === "number" ? cpuSecondsOf(source) : source();
  // pid → [first reading, last reading]; a backend born during the run starts from 0.
  const backends = {
    database: new Map<number, [number, number]>(),
    server: new Map<number, [number, number]>(),
  };
  let first = true;
  const sample = async () => {
    if (!options.db) return;
    const { rows } = await options.db.query<{ pid: number; mine: boolean }>(
      `SELECT pid, datname = current_database() AS mine FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND (datname = current_database() OR datname IS NULL)`,
    );
    for (const { pid, mine } of rows) {
      const seconds = cpuSecondsOf(pid);
      if (Number.isNaN(seconds)) continue;
      const map = mine ? backends.database : backends.server;
      const seen = map.get(pid);
      if (seen) seen[1] = seconds;
      else map.set(pid, [first ? seconds : 0, seconds]);
    }
    first = false;
  };
  const before = options.processes.map(([, source]) => read(source));
  const redisBefore = await redisSeconds();
  await sample();
  return {
    sample,
    async stop() {
      await sample();
      const after = options.processes.map(([, source]) => read(source));
      const redisAfter = await redisSeconds();
      redis?.disconnect();
      const sum = (map: Map<number, [number, number]>) =>
        [...map.values()].reduce((total, [from, to]) => total + to - from, 0);
      return [
        ...options.processes.map(([label], i): [string, number] => [label, after[i]! - before[i]!]),
        ...(options.db
          ? [
              ["PostgreSQL (this database's backends)", sum(backends.database)] as [string, number],
              ["PostgreSQL (background: WAL writer, checkpointer…, server-wide)", sum(backends.server)] as [
                string,
                number,
              ],
            ]
          : []),
        ...(redis ? [["redis-server (whole server)", redisAfter - redisBefore] as [string, number]] : []),
      ];
    },
  };
}

/**
 * One line per part in µs per message, and the total of the parts not in `benchOwn` (the load
 * generator and the receiver stand in for customers: listed, not counted).
 */
export function describeCpu(
  parts: Array<[string, number]>,
  messages: number,
  benchOwn: ReadonlySet<string>,
): { lines: string[]; total: number } {
  let total = 0;
  const lines = parts.map(([label, seconds]) => {
    const us = (seconds / messages) * 1e6;
    if (!benchOwn.has(label)) total += us;
    return `${label.padEnd(66)} ${us.toFixed(0).padStart(6)} µs${benchOwn.has(label) ? "   (not counted)" : ""}`;
  });
  return { lines, total };
}
