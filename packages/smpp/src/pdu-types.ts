import type { Pdu } from "./codec";

/** The three binds of SMPP 3.4 §4.1. */
export type BindType = "transmitter" | "receiver" | "transceiver";

/** SMPP 3.4 interface_version; the codec defaults to 0x50 (SMPP 5.0), which 3.4 carriers may refuse (docs/smpp.md#the-smpp-package). */
export const INTERFACE_VERSION_34 = 0x34;

/** esm_class bits we use (SMPP 3.4 §5.2.12). */
export const EsmClass = {
  /** Message type "SMSC delivery receipt" in bits 2-5. */
  DELIVERY_RECEIPT: 0x04,
  /** Mask of the message type bits 2-5. */
  MESSAGE_TYPE_MASK: 0x3c,
  /** UDH indicator: short_message starts with a user data header. */
  UDHI: 0x40,
} as const;

/** Fields of a submit_sm (SMPP 3.4 §4.4.1); short_message is already encoded, with its data_coding. */
export interface SubmitSm {
  source_addr: string;
  source_addr_ton?: number;
  source_addr_npi?: number;
  destination_addr: string;
  dest_addr_ton?: number;
  dest_addr_npi?: number;
  service_type?: string;
  esm_class?: number;
  protocol_id?: number;
  priority_flag?: number;
  schedule_delivery_time?: string;
  validity_period?: string;
  registered_delivery?: number;
  data_coding: number;
  short_message: Buffer;
  /** Optional TLVs by name (message_payload, user_message_reference, sar_*, …). */
  [tlv: string]: unknown;
}

/** A submit_sm_resp: message_id is present when command_status is ESME_ROK. */
export interface SubmitSmResp extends Pdu {
  message_id?: string;
}

/** A received deliver_sm (MO message or delivery receipt), text fields raw. */
export interface DeliverSm extends Pdu {
  source_addr: string;
  destination_addr: string;
  esm_class: number;
  data_coding: number;
  short_message: Buffer;
  receipted_message_id?: string;
  message_state?: number;
  message_payload?: Buffer;
}
