export * from "./run-service";
export { startLoop, settlesWithin, type Loop } from "./loop";
export { closeWorkerWithin, type ClosableWorker } from "./close-worker";
export { InFlight } from "./in-flight";
