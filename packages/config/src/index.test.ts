import { commonSettings, ConfigError, envBoolean, envInt, loadConfig, segmentSettings, z } from "./index";

const schema = z.object({ PORT: envInt(3000, 1, 65535), DEBUG: envBoolean(false), NAME: z.string().min(1) });

describe("loadConfig", () => {
  it("applies defaults and coerces values", () => {
    expect(loadConfig(schema, { NAME: "gw", DEBUG: "yes" })).toEqual({ PORT: 3000, DEBUG: true, NAME: "gw" });
  });

  it("names every missing or invalid setting", () => {
    expect(() => loadConfig(schema, { PORT: "99999" })).toThrow(ConfigError);
    try {
      loadConfig(schema, { PORT: "99999" });
    } catch (error) {
      expect((error as Error).message).toMatch(/PORT is invalid/);
      expect((error as Error).message).toMatch(/NAME is missing/);
    }
  });
});

describe("commonSettings", () => {
  const redis = z.object({ REDIS_URL: commonSettings.REDIS_URL, REDIS_PREFIX: commonSettings.REDIS_PREFIX });

  it("accepts one Redis server or the nodes of a Redis Cluster", () => {
    for (const url of [
      "redis://127.0.0.1:6379",
      "rediss://:pw@cache:6380/1",
      "redis-cluster://a:7000,b:7001",
    ])
      expect(loadConfig(redis, { REDIS_URL: url }).REDIS_URL).toBe(url);
  });

  it("refuses another scheme, a cluster node without a port, and a prefix with a hash tag", () => {
    for (const env of [
      { REDIS_URL: "http://127.0.0.1:6379" },
      { REDIS_URL: "redis-cluster://a:7000,b" },
      { REDIS_PREFIX: "sms{x}" },
    ])
      expect(() => loadConfig(redis, env)).toThrow(/REDIS_(URL|PREFIX) is invalid/);
  });
});

describe("segmentSettings", () => {
  const segments = z.object(segmentSettings);

  it("defaults to 10 segments of 1 credit each", () => {
    expect(loadConfig(segments, {})).toEqual({ MAX_SEGMENTS: 10, CREDITS_PER_SEGMENT: 1 });
  });

  it("takes 1 to 255 segments and 0 to 1000 credits per segment", () => {
    expect(loadConfig(segments, { MAX_SEGMENTS: "255", CREDITS_PER_SEGMENT: "0" })).toEqual({
      MAX_SEGMENTS: 255,
      CREDITS_PER_SEGMENT: 0,
    });
    for (const env of [{ MAX_SEGMENTS: "0" }, { MAX_SEGMENTS: "256" }, { CREDITS_PER_SEGMENT: "1001" }])
      expect(() => loadConfig(segments, env)).toThrow(/(MAX_SEGMENTS|CREDITS_PER_SEGMENT) is invalid/);
  });
});
