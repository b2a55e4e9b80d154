import { carriersFor } from "./routing";
import { classifySubmitStatus } from "./submit-outcome";
import { buildSubmitSm, concatReference, sourceAddress } from "./submit-pdu";
import { splitMessage } from "@sms/sms-encoding";
import { CommandStatus } from "@sms/smpp";

describe("carriersFor", () => {
  const routes = [
    { prefix: "+", carrierId: "global", priority: 0 },
    { prefix: "+1", carrierId: "us-a", priority: 1 },
    { prefix: "+1", carrierId: "us-b", priority: 0 },
    { prefix: "+1415", carrierId: "sf", priority: 5 },
    { prefix: "+44", carrierId: "uk", priority: 0 },
  ];

  it("orders by longest prefix, then priority, with failovers after", () => {
    expect(carriersFor(routes, "+14155550100")).toEqual(["sf", "us-b", "us-a", "global"]);
    expect(carriersFor(routes, "+12125550100")).toEqual(["us-b", "us-a", "global"]);
    expect(carriersFor(routes, "+33612345678")).toEqual(["global"]);
    expect(carriersFor(routes.slice(1), "+33612345678")).toEqual([]);
  });
});

describe("classifySubmitStatus", () => {
  it("backs off on throttling, fails over on route refusals, retries system errors, fails the rest", () => {
    expect(classifySubmitStatus(CommandStatus.ESME_ROK)).toEqual({ kind: "accepted" });
    expect(classifySubmitStatus(CommandStatus.ESME_RTHROTTLED).kind).toBe("busy");
    expect(classifySubmitStatus(CommandStatus.ESME_RMSGQFUL).kind).toBe("busy");
    expect(classifySubmitStatus(CommandStatus.ESME_RINVDSTADR)).toEqual({
      kind: "route-refused",
      errorCode: "SMPP_ESME_RINVDSTADR",
      carrierFault: false,
    });
    expect(classifySubmitStatus(CommandStatus.ESME_RSYSERR).kind).toBe("temporary");
    expect(classifySubmitStatus(CommandStatus.ESME_RINVESMCLASS)).toEqual({
      kind: "permanent",
      errorCode: "SMPP_ESME_RINVESMCLASS",
    });
  });
});

describe("submit_sm building", () => {
  it("sends every part with an explicit data_coding, the UDHI bit on concatenated parts, and a receipt request", () => {
    const parts = splitMessage("مرحبا ".repeat(20), { reference: concatReference("msg_X") });
    const pdus = parts.map((part) => buildSubmitSm({ to: "+966501234567", senderId: "ACME" }, part));
    expect(pdus.length).toBeGreaterThan(1);
    for (const pdu of pdus) {
      expect(pdu).toMatchObject({
        data_coding: 0x08,
        esm_class: 0x40,
        registered_delivery: 1,
        destination_addr: "966501234567",
        dest_addr_ton: 1,
      });
      expect(pdu.short_message.length).toBeLessThanOrEqual(140);
    }
    const single = buildSubmitSm(
      { to: "+14155550100", senderId: "ACME" },
      splitMessage("hi @", { reference: 1 })[0]!,
    );
    expect(single).toMatchObject({ data_coding: 0, esm_class: 0, source_addr: "ACME", source_addr_ton: 5 });
    expect([...single.short_message]).toEqual([0x68, 0x69, 0x20, 0x00]);
  });

  it("keeps the concatenation reference stable for a message id", () => {
    expect(concatReference("msg_A")).toBe(concatReference("msg_A"));
    expect(sourceAddress("+14155550100")).toEqual({
      source_addr: "14155550100",
      source_addr_ton: 1,
      source_addr_npi: 1,
    });
    expect(sourceAddress("12345")).toEqual({ source_addr: "12345", source_addr_ton: 0, source_addr_npi: 0 });
  });
});
