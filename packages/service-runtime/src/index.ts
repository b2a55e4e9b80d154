export * from "./run-service";
export { startLoop, settlesWithin, type Loop } from "./loop";
