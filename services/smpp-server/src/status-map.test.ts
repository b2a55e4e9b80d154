import { ERROR_STATUS, type ErrorCode } from "@sms/errors";
import { CommandStatus, describeStatus } from "@sms/smpp";
import { SMPP_STATUS_FOR_ERROR, smppStatusFor } from "./status-map";

describe("REST error code → SMPP command_status", () => {
  it("has a named SMPP 3.4 error status for every documented error code", () => {
    for (const code of Object.keys(ERROR_STATUS) as ErrorCode[]) {
      const status = smppStatusFor(code);
      expect(status).not.toBe(CommandStatus.ESME_ROK);
      expect(describeStatus(status)).toMatch(/^ESME_/);
    }
    expect(Object.keys(SMPP_STATUS_FOR_ERROR).sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it("tells a customer to retry later exactly where REST would (429 and 5xx)", () => {
    const retryLater = new Set<number>([
      CommandStatus.ESME_RTHROTTLED,
      CommandStatus.ESME_RMSGQFUL,
      CommandStatus.ESME_RSYSERR,
    ]);
    for (const [code, http] of Object.entries(ERROR_STATUS))
      if (code !== "OTP_MAX_ATTEMPTS")
        expect([code, retryLater.has(smppStatusFor(code as ErrorCode))]).toEqual([
          code,
          http === 429 || http >= 500,
        ]);
  });
});
