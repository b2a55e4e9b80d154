import { ConfigError } from "@sms/config";
import { loadAdminConfig } from "./config";

describe("loadAdminConfig", () => {
  it("defaults to the local database, gateway and carrier simulator", () => {
    expect(loadAdminConfig({})).toEqual({
      DATABASE_URL: "postgresql://postgres@127.0.0.1:5432/sms",
      GATEWAY_URL: "http://127.0.0.1:3000",
      DASHBOARD_URL: "http://127.0.0.1:3100",
      SIMULATOR_SMPP_HOST: "127.0.0.1",
      SIMULATOR_SMPP_PORT: 2776,
      SMPP_SERVER_ADDRESS: "127.0.0.1:2775",
      REDIS_URL: "redis://127.0.0.1:6379",
      REDIS_PREFIX: "sms",
      WEBHOOK_ALLOW_LOOPBACK: false,
      WEBHOOK_REPLAY_MAX_PER_REQUEST: 1000,
      WEBHOOK_ALLOW_HTTP: false,
    });
  });

  it("reads the simulator's SMPP address", () => {
    expect(
      loadAdminConfig({ SIMULATOR_SMPP_HOST: "carrier-sim", SIMULATOR_SMPP_PORT: "12776" }),
    ).toMatchObject({ SIMULATOR_SMPP_HOST: "carrier-sim", SIMULATOR_SMPP_PORT: 12776 });
  });

  it("names a bad setting", () => {
    expect(() => loadAdminConfig({ GATEWAY_URL: "not a url" })).toThrow(ConfigError);
    expect(() => loadAdminConfig({ GATEWAY_URL: "not a url" })).toThrow(/GATEWAY_URL/);
    expect(() => loadAdminConfig({ SIMULATOR_SMPP_PORT: "70000" })).toThrow(/SIMULATOR_SMPP_PORT/);
    expect(() => loadAdminConfig({ SIMULATOR_SMPP_PORT: "0" })).toThrow(/SIMULATOR_SMPP_PORT/);
  });
});
