import { ConfigError } from "@sms/config";
import { loadDlrIngestConfig } from "./config";

describe("loadDlrIngestConfig", () => {
  it("has the documented defaults", () => {
    expect(loadDlrIngestConfig({})).toMatchObject({
      PORT: 3030,
      CARRIER_REFRESH_MS: 10000,
      SWEEP_INTERVAL_MS: 60000,
    });
    expect(loadDlrIngestConfig({}).HTTP_RECEIPT_TOKEN).toBeUndefined();
  });

  it("treats an empty HTTP_RECEIPT_TOKEN as unset and refuses a short one", () => {
    expect(loadDlrIngestConfig({ HTTP_RECEIPT_TOKEN: "" }).HTTP_RECEIPT_TOKEN).toBeUndefined();
    expect(() => loadDlrIngestConfig({ HTTP_RECEIPT_TOKEN: "short" })).toThrow(/HTTP_RECEIPT_TOKEN/);
  });

  it("names a bad setting", () => {
    expect(() => loadDlrIngestConfig({ CARRIER_REFRESH_MS: "soon" })).toThrow(ConfigError);
    expect(() => loadDlrIngestConfig({ CARRIER_REFRESH_MS: "soon" })).toThrow(/CARRIER_REFRESH_MS/);
  });
});
