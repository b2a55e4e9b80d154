import { CommandStatus, describeStatus, isRetryableStatus } from "@sms/smpp";
import type { SubmitResult } from "./carrier-health";

/** What the dispatcher does with a submit_sm_resp status. */
export type SubmitVerdict =
  | { kind: "accepted" }
  | { kind: "busy" } // back off and submit again to the same carrier
  | { kind: "route-refused"; errorCode: string; carrierFault: boolean } // try the next carrier, if nothing was accepted yet
  | { kind: "temporary"; errorCode: string } // retry later, bounded
  | { kind: "permanent"; errorCode: string }; // the message fails

// The carrier will not take this destination or source from us: another carrier may.
const ROUTE_REFUSALS = new Set<number>([
  CommandStatus.ESME_RINVDSTADR,
  CommandStatus.ESME_RINVDSTTON,
  CommandStatus.ESME_RINVSRCADR,
  CommandStatus.ESME_RINVSRCTON,
]);
// Permanent for this carrier, not for the message (docs/operations.md#failover-and-carrier-health):
// this carrier failed it or does not offer what it needs; the next route is tried before the message fails.
// Unlike a route refusal they count against the carrier's health.
export const ROUTE_SPECIFIC_FAILURES = new Set<number>([
  CommandStatus.ESME_RSUBMITFAIL,
  CommandStatus.ESME_RINVSERTYP,
  CommandStatus.ESME_RINVDCS,
]);
// The carrier's own trouble: the same submit may succeed later.
const TEMPORARY = new Set<number>([
  CommandStatus.ESME_RSYSERR,
  CommandStatus.ESME_RX_T_APPN,
  CommandStatus.ESME_RUNKNOWNERR,
]);

/** Classifies a submit_sm_resp command_status (docs/smpp.md#carriers: throttling backs off, permanent errors fail). */
export function classifySubmitStatus(status: number): SubmitVerdict {
  if (status === CommandStatus.ESME_ROK) return { kind: "accepted" };
  if (isRetryableStatus(status)) return { kind: "busy" };
  const errorCode = `SMPP_${describeStatus(status)}`;
  if (ROUTE_REFUSALS.has(status)) return { kind: "route-refused", errorCode, carrierFault: false };
  if (ROUTE_SPECIFIC_FAILURES.has(status)) return { kind: "route-refused", errorCode, carrierFault: true };
  if (TEMPORARY.has(status)) return { kind: "temporary", errorCode };
  return { kind: "permanent", errorCode };
}

/** What an answer tells the carrier's breaker. */
export function healthResult(verdict: SubmitVerdict): SubmitResult {
  switch (verdict.kind) {
    case "accepted":
      return "accepted";
    case "busy":
      return "throttled";
    case "temporary":
      return "failed";
    case "route-refused":
      return verdict.carrierFault ? "failed" : "refused";
    case "permanent":
      return "refused";
  }
}
