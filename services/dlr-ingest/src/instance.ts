import os from "node:os";

/** This process, as carrier_receipts.received_by records it: host (the pod name on Kubernetes) and pid. */
export const INSTANCE_NAME = `${os.hostname()}:${process.pid}`;
