import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import path from "node:path";
import { createRedis, type Redis } from "@sms/redis";
import { createTestWorld, waitFor, type TestWorld } from "@sms/testing";
import { deleteKeys } from "./fixtures/cleanup";
import { burstInOneWindow, expectFixedWindowInvariant } from "./fixtures/redis-clock";
import { CHECK_SCRIPT_PATH, checkScriptInput, type RateLimitDecision } from "./rate-limiter";

const FIXTURE = path.join(__dirname, "fixtures", "burst-check.mjs");

/** A child Node process running the shipped Lua; resolves its replies once told to go. */
function startBurst(redisUrl: string, input: unknown, count: number) {
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [FIXTURE, redisUrl, CHECK_SCRIPT_PATH, JSON.stringify(input), String(count)],
    { cwd: __dirname },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return {
    ready: () => waitFor(() => stdout.startsWith("ready\n"), { what: `child ready (stderr: ${stderr})` }),
    go: () => child.stdin.write("go\n"),
    async replies(): Promise<RateLimitDecision[]> {
      const code = await exited;
      if (code !== 0) throw new Error(`burst child exited with ${code}: ${stderr}`);
      const raw = JSON.parse(stdout.slice("ready\n".length)) as [
        number,
        string,
        number,
        number,
        number,
        number,
      ][];
      return raw.map(([allowed, reason, limit, remaining, reset, retryAfter]) => ({
        allowed: allowed === 1,
        ...(reason ? { reason: reason as "RATE_LIMITED" } : {}),
        limit,
        remaining,
        resetEpochSeconds: reset,
        retryAfterSeconds: retryAfter,
      }));
    },
    kill: () => child.kill(),
  };
}

describe("two processes sharing one limit (real Redis, real child processes)", () => {
  let world: TestWorld;
  let redis: Redis;
  beforeAll(async () => {
    world = await createTestWorld();
    redis = createRedis(world.redisUrl);
    await waitFor(() => redis.status === "ready", { what: "Redis connection" });
  });
  afterAll(async () => {
    await deleteKeys(redis, world.redisPrefix);
    redis.disconnect();
    await world.destroy();
  });

  it("allows exactly 120 of 2 x 100 checks at a limit of 120", async () => {
    let children: ReturnType<typeof startBurst>[] = [];
    try {
      const decisions = await burstInOneWindow(redis, async (account) => {
        const input = checkScriptInput(world.redisPrefix, account, { requestsPerSecond: 120 });
        children = [startBurst(world.redisUrl, input, 100), startBurst(world.redisUrl, input, 100)];
        await Promise.all(children.map((c) => c.ready()));
        // Both processes are connected and hold the script: release them together, early in a second.
        await waitFor(async () => Number((await redis.time())[1]) < 200_000, {
          intervalMs: 5,
          what: "a fresh second",
        });
        for (const c of children) c.go();
        return (await Promise.all(children.map((c) => c.replies()))).flat();
      });
      expect(decisions).toHaveLength(200);
      expectFixedWindowInvariant(decisions, 120);
      expect(new Set(decisions.map((d) => d.resetEpochSeconds)).size).toBe(1);
      expect(decisions.filter((d) => d.allowed)).toHaveLength(120);
      expect(decisions.filter((d) => d.reason === "RATE_LIMITED")).toHaveLength(80);
    } finally {
      for (const c of children) c.kill();
    }
  });
});
