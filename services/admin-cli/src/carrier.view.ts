import type { Carrier } from "@sms/db";

/** Printed wherever the password would be: we present it to the carrier, never to a screen. */
export const PASSWORD_MASK = "********";

/** A carrier as listings print it, password masked. */
export function describeCarrier(carrier: Carrier) {
  return {
    id: carrier.id,
    name: carrier.name,
    host: carrier.host,
    port: carrier.port,
    tls: carrier.useTls,
    system_id: carrier.systemId,
    password: PASSWORD_MASK,
    system_type: carrier.systemType,
    transmitter_binds: carrier.transmitterBinds,
    receiver_binds: carrier.receiverBinds,
    transceiver_binds: carrier.transceiverBinds,
    window_size: carrier.windowSize,
    submits_per_second: carrier.submitsPerSecond,
    receipt_id_form: carrier.receiptIdForm,
    receipt_window_hours: carrier.receiptWindowHours,
    gsm7_encoding: carrier.gsm7Encoding,
    /** Whether the carrier may post inbound messages over HTTP; the token itself is never kept. */
    inbound_token: carrier.inboundTokenHash !== null,
    enabled: carrier.enabled,
    created_at: carrier.createdAt.toISOString(),
    updated_at: carrier.updatedAt.toISOString(),
  };
}

/** The binds we open: transceivers only, or transmitters plus receivers (docs/decisions.md#transceiver-binds). */
export function describeBinds(carrier: Carrier): string {
  return carrier.transceiverBinds > 0
    ? `${carrier.transceiverBinds} transceiver binds`
    : `${carrier.transmitterBinds} transmitter + ${carrier.receiverBinds} receiver binds`;
}

/** One line: where we bind and how hard we may push. */
export function summarizeCarrier(carrier: Carrier): string {
  return (
    `${carrier.host}:${carrier.port} (${carrier.useTls ? "TLS" : "plain TCP"}), system_id ${carrier.systemId}, ` +
    `${describeBinds(carrier)}, ` +
    `window ${carrier.windowSize}, ${carrier.submitsPerSecond} submits/s` +
    (carrier.receiptIdForm === "as_is" ? "" : `, receipts quote ids in ${carrier.receiptIdForm}`) +
    (carrier.gsm7Encoding === "unpacked" ? "" : `, data_coding 0 as ${carrier.gsm7Encoding}`) +
    (carrier.enabled ? "" : ", disabled")
  );
}
