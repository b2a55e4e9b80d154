import { execFile } from "node:child_process";
import http from "node:http";
import { readdirSync, readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";

export interface LoadResult {
  generator: string;
  accepted: number;
  nonSuccess: number;
  errors: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

const run = promisify(execFile);

async function hasWrk(): Promise<boolean> {
  if (process.env.BENCH_LOADGEN === "autocannon") return false;
  try {
    await run("wrk", ["--version"]);
    return true;
  } catch (error) {
    // wrk --version exits 1 after printing its version.
    return /wrk/.test(String((error as { stdout?: string }).stdout ?? ""));
  }
}

/**
 * POSTs `body` at `url` for `seconds` over `connections` connections. Uses wrk (C, from
 * Debian's packages) when it is installed: it needs a fraction of the CPU autocannon
 * (Node) does, which matters when generator and gateway share two cores. Falls back to autocannon.
 */
export async function postLoad(options: {
  url: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  seconds: number;
}): Promise<LoadResult> {
  if (await hasWrk()) {
    const dir = mkdtempSync(path.join(os.tmpdir(), "wrk-"));
    const script = path.join(dir, "post.lua");
    const headerLines = Object.entries(options.headers).map(
      ([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}`,
    );
    writeFileSync(
      script,
      [
        'wrk.method = "POST"',
        `wrk.body = ${JSON.stringify(options.body)}`,
        ...headerLines,
        "local bad = 0",
        "response = function(status) if status ~= 202 then bad = bad + 1 end end",
        'done = function(summary, latency) io.write(string.format("STATS %d %d %d %.3f %.3f %.3f %.3f\\n", summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, summary.errors.status, latency:percentile(50)/1000, latency:percentile(90)/1000, latency:percentile(99)/1000, latency.max/1000)) end',
      ].join("\n"),
    );
    const { stdout } = await run(
      "wrk",
      ["-t2", `-c${options.connections}`, `-d${options.seconds}s`, "-s", script, options.url],
      { maxBuffer: 1 << 20 },
    );
    const match = /STATS (\d+) (\d+) (\d+) ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)/.exec(stdout);
    if (!match) throw new Error(`could not read wrk's output:\n${stdout}`);
    const [, requests, errors, nonSuccess, p50, p90, p99, max] = match.map(Number) as number[];
    return {
      generator: "wrk",
      accepted: requests! - nonSuccess!,
      nonSuccess: nonSuccess!,
      errors: errors!,
      latencyMs: { p50: p50!, p90: p90!, p99: p99!, max: max! },
    };
  }
  const result = await autocannon({
    url: options.url,
    method: "POST",
    headers: options.headers,
    body: options.body,
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    generator: "autocannon",
    accepted: result["2xx"],
    nonSuccess: result.non2xx,
    errors: result.errors + result.timeouts,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
  };
}

/**
 * Sends exactly `amount` requests over `connections` connections (autocannon, in this process:
 * wrk cannot stop at a count) and says how fast they were answered with a 2xx.
 */
export async function fixedCountLoad(options: {
  url: string;
  method: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  amount: number;
}): Promise<LoadResult & { seconds: number }> {
  const started = Date.now();
  let lastAnswer = started;
  // autocannon settles on its one-second tick after the last answer: timed to the last answer
  // instead, or the rate would count up to a second of nothing (10,000 in 5.1 s read as 6 s).
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon({ ...options, timeout: 30 }, (error, done) =>
      error ? reject(error) : resolve(done),
    );
    run.on("response", () => (lastAnswer = Date.now()));
  });
  return {
    generator: "autocannon",
    accepted: result["2xx"],
    nonSuccess: result.non2xx,
    errors: result.errors + result.timeouts,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
    },
    seconds: (lastAnswer - started) / 1000,
  };
}

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux). The difference
 * over a load phase divided by the requests answered is the CPU each request cost: a figure
 * that, unlike requests/s, holds still when other work shares the machine.
 */
export function cpuSecondsOf(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** CPU seconds used so far by every process whose command line contains `match` (PostgreSQL's backends, redis-server). */
export function cpuSecondsMatching(match: string): number {
  let total = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(match))
        total += cpuSecondsOf(Number(entry));
    } catch {
      /* the process ended meanwhile */
    }
  }
  return total;
}

/** Busy and idle CPU time of the whole machine so far, seconds summed over cores (/proc/stat). */
export function machineCpu(): { busy: number; idle: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  const busy = fields.slice(0, 8).reduce((a, b) => a + b, 0) - idle;
  return { busy: busy / 100, idle: idle / 100 };
}

/** The 1-minute load average and the core count, for the line printed with each figure. */
export function machineLoad(): string {
  return `load average ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")} on ${os.cpus().length} cores`;
}

/**
 * A keep-alive HTTP client for benchmarks that need each response (ids to reuse, fixed-rate
 * schedules): node:http with one pooled connection per caller. Node's fetch costs several times
 * the CPU per request, CPU the service under test shares on this machine.
 */
export function jsonClient(baseUrl: string, headers: Record<string, string>, connections: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const { hostname, port } = new URL(baseUrl);
  return {
    post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
      const payload = JSON.stringify(body);
      return new Promise((resolve, reject) => {
        const request = http.request(
          {
            agent,
            hostname,
            port,
            path,
            method: "POST",
            headers: { ...headers, "content-length": Buffer.byteLength(payload) },
          },
          (response) => {
            const chunks: Buffer[] = [];
            response.on("data", (chunk: Buffer) => chunks.push(chunk));
            response.on("end", () => {
              try {
                resolve({
                  status: response.statusCode ?? 0,
                  body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>,
                });
              } catch (error) {
                reject(error);
              }
            });
            response.on("error", reject);
          },
        );
        request.on("error", reject);
        request.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}
