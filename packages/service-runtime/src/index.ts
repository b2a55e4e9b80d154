export * from "./run-service";
export { startLoop, settlesWithin, type Loop } from "./loop";
export { closeWorkerWithin, type ClosableWorker } from "./close-worker";
export { closeHttpServer } from "./close-http-server";
export { InFlight } from "./in-flight";
export { orderedStop, type ShutdownBound, type StopStep } from "./ordered-stop";
export { registerWorker, type RegisteredWorker, type WorkerInstrumentation } from "./register-worker";
export * from "./health";
export { createExpressServer, listenExpress } from "./express-server";
