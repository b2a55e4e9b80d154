import { ConfigError } from "@sms/config";
import { loadAdminConfig } from "./config";

describe("loadAdminConfig", () => {
  it("defaults to the local database and gateway", () => {
    expect(loadAdminConfig({})).toEqual({
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/sms",
      GATEWAY_URL: "http://127.0.0.1:3000",
    });
  });

  it("names a bad setting", () => {
    expect(() => loadAdminConfig({ GATEWAY_URL: "not a url" })).toThrow(ConfigError);
    expect(() => loadAdminConfig({ GATEWAY_URL: "not a url" })).toThrow(/GATEWAY_URL/);
  });
});
