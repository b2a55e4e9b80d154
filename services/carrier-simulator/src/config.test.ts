import { ConfigError } from "@sms/config";
import { loadSimulatorConfig, toSimulatorOptions } from "./config";

describe("simulator config", () => {
  it("defaults to SMPP 2776, HTTP 8776, any bind, all delivered", () => {
    const options = toSimulatorOptions(loadSimulatorConfig({}));
    expect(options).toMatchObject({
      smppPort: 2776,
      httpPort: 8776,
      accounts: undefined,
      bindTypes: ["transmitter", "receiver", "transceiver"],
    });
    expect(options.settings?.outcomes).toEqual({ delivered: 100, undeliverable: 0, rejected: 0, expired: 0 });
  });

  it("reads accounts and weights", () => {
    const options = toSimulatorOptions(
      loadSimulatorConfig({
        CARRIER_SIM_ACCOUNTS: "acme:s3cret, other:pa:ss",
        CARRIER_SIM_WEIGHT_EXPIRED: "5",
      }),
    );
    expect(options.accounts).toEqual({ acme: "s3cret", other: "pa:ss" });
    expect(options.settings?.outcomes?.expired).toBe(5);
  });

  it("reads a carrier in trouble: every submit refused with a status, or none answered", () => {
    const options = toSimulatorOptions(
      loadSimulatorConfig({ CARRIER_SIM_REFUSE_SUBMITS_WITH: "8", CARRIER_SIM_RESPOND_TO_SUBMITS: "false" }),
    );
    expect(options.settings).toMatchObject({ refuseSubmitsWith: 8, respondToSubmits: false });
    expect(toSimulatorOptions(loadSimulatorConfig({})).settings).toMatchObject({
      refuseSubmitsWith: 0,
      respondToSubmits: true,
    });
  });

  it("reads the bind types it accepts (a transceiver-only SMSC)", () => {
    expect(
      toSimulatorOptions(loadSimulatorConfig({ CARRIER_SIM_BIND_TYPES: "transceiver" })).bindTypes,
    ).toEqual(["transceiver"]);
    expect(() => loadSimulatorConfig({ CARRIER_SIM_BIND_TYPES: "transceiver,bogus" })).toThrow(
      /CARRIER_SIM_BIND_TYPES/,
    );
  });

  it("names a bad setting", () => {
    expect(() => loadSimulatorConfig({ CARRIER_SIM_SMPP_PORT: "70000" })).toThrow(ConfigError);
    expect(() => loadSimulatorConfig({ CARRIER_SIM_ACCOUNTS: "no-colon" })).toThrow(/CARRIER_SIM_ACCOUNTS/);
  });
});
