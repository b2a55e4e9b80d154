import os from "node:os";

/** This process, as message_segments.submitted_by records it: host (the pod name on Kubernetes) and pid. */
export const INSTANCE_NAME = `${os.hostname()}:${process.pid}`;
