/**
 * SMPP v3.4 command_status values (spec §5.1.3, table 5-2) that our code names.
 * Defined once here; compare against these, never against bare numbers.
 */
export const CommandStatus = {
  ESME_ROK: 0x00,
  ESME_RINVMSGLEN: 0x01,
  ESME_RINVCMDLEN: 0x02,
  ESME_RINVCMDID: 0x03,
  ESME_RINVBNDSTS: 0x04,
  ESME_RALYBND: 0x05,
  ESME_RINVPRTFLG: 0x06,
  ESME_RINVREGDLVFLG: 0x07,
  ESME_RSYSERR: 0x08,
  ESME_RINVSRCADR: 0x0a,
  ESME_RINVDSTADR: 0x0b,
  ESME_RINVMSGID: 0x0c,
  ESME_RBINDFAIL: 0x0d,
  ESME_RINVPASWD: 0x0e,
  ESME_RINVSYSID: 0x0f,
  ESME_RMSGQFUL: 0x14,
  ESME_RINVSERTYP: 0x15,
  ESME_RINVNUMDESTS: 0x33,
  ESME_RINVESMCLASS: 0x43,
  ESME_RSUBMITFAIL: 0x45,
  ESME_RINVSRCTON: 0x48,
  ESME_RINVDSTTON: 0x50,
  ESME_RTHROTTLED: 0x58,
  ESME_RINVSCHED: 0x61,
  ESME_RINVEXPIRY: 0x62,
  ESME_RX_T_APPN: 0x64,
  ESME_RQUERYFAIL: 0x67,
  ESME_RX_P_APPN: 0x65,
  ESME_RX_R_APPN: 0x66,
  ESME_RINVTLVSTREAM: 0xc0,
  /** A TLV whose length is out of range (SMPP 3.4 table 5-2: "Invalid Parameter Length"). */
  ESME_RINVPARLEN: 0xc2,
  /** A TLV whose value is not allowed ("Invalid Optional Parameter Value"). */
  ESME_RINVOPTPARAMVAL: 0xc4,
  ESME_RINVDCS: 0x104,
  ESME_RUNKNOWNERR: 0xff,
} as const;

export type CommandStatusName = keyof typeof CommandStatus;

const namesByValue = new Map<number, CommandStatusName>(
  Object.entries(CommandStatus).map(([name, value]) => [value, name as CommandStatusName]),
);

/** The constant's name for a status (`ESME_RTHROTTLED`), or `0x…` when we have not named it. */
export function describeStatus(status: number): string {
  return namesByValue.get(status) ?? `0x${status.toString(16).padStart(8, "0")}`;
}

/**
 * True for statuses that mean "the carrier is busy, back off and submit again"
 * (docs/smpp.md#carriers: ESME_RTHROTTLED and ESME_RMSGQFUL are retried, the rest fail the message).
 */
export function isRetryableStatus(status: number): boolean {
  return status === CommandStatus.ESME_RTHROTTLED || status === CommandStatus.ESME_RMSGQFUL;
}
