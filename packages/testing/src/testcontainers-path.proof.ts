// Run by pnpm test:containers with no DATABASE_URL / REDIS_URL and the local servers hidden
// (TEST_LOCAL_SERVERS=ignore): the global setup must have started containers, and the rest of
// the harness must work on them as it does on local servers.
import { execFileSync } from "node:child_process";
import { Redis } from "ioredis";
import { createTestWorld } from "./world";

const published = () =>
  execFileSync("docker", ["ps", "--format", "{{.Image}} {{.Ports}}"], { encoding: "utf8" });

describe("the tests' testcontainers path", () => {
  it.each([
    ["PostgreSQL", "TEST_POSTGRES_URL", 5432, "TEST_POSTGRES_IMAGE"],
    ["Redis", "TEST_REDIS_URL", 6379, "TEST_REDIS_IMAGE"],
  ])("runs on a %s container started for this run, not on a local server", (_name, variable, port, image) => {
    const url = new URL(process.env[variable]!);
    expect(url.port).not.toBe(String(port));
    const line = published()
      .split("\n")
      .find((l) => l.includes(`:${url.port}->${port}/tcp`));
    expect(line?.split(" ")[0]).toBe(process.env[image] ?? expect.any(String));
  });

  it("migrated the template there, and a world cloned from it works on both servers", async () => {
    const world = await createTestWorld();
    try {
      const { rows } = await world
        .pool()
        .query<{ applied: number }>(
          "SELECT count(*)::int AS applied FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL",
        );
      expect(rows[0]!.applied).toBeGreaterThan(10);
      const redis = new Redis(world.redisUrl);
      try {
        await redis.set(`${world.redisPrefix}:proof`, "ok");
        expect(await redis.get(`${world.redisPrefix}:proof`)).toBe("ok");
      } finally {
        redis.disconnect();
      }
    } finally {
      await world.destroy();
    }
  });
});
