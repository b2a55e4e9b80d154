import { ConfigError, envBoolean, envInt, loadConfig, z } from "./index";

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
