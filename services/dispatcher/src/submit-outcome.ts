import { CommandStatus, describeStatus, isRetryableStatus } from "@sms/smpp";

/** What the dispatcher does with a submit_sm_resp status. */
export type SubmitVerdict =
  | { kind: "accepted" }
  | { kind: "busy" } // back off and submit again to the same carrier
  | { kind: "route-refused"; errorCode: string } // try the next carrier, if nothing was accepted yet
  | { kind: "temporary"; errorCode: string } // retry later, bounded
  | { kind: "permanent"; errorCode: string }; // the message fails

// The carrier will not take this destination or source from us: another carrier may.
const ROUTE_REFUSALS = new Set<number>([
  CommandStatus.ESME_RINVDSTADR,
  CommandStatus.ESME_RINVDSTTON,
  CommandStatus.ESME_RINVSRCADR,
  CommandStatus.ESME_RINVSRCTON,
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
  if (ROUTE_REFUSALS.has(status)) return { kind: "route-refused", errorCode };
  if (TEMPORARY.has(status)) return { kind: "temporary", errorCode };
  return { kind: "permanent", errorCode };
}
