import { readFileSync } from "node:fs";
import { launchService, type ServiceProcess } from "@sms/testing";
import { createHarness, type Harness } from "./harness";

let h: Harness;
const processes: ServiceProcess[] = [];

beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(async () => {
  for (const service of processes) service.kill();
  await h?.close();
});

/** The nice value of a process's main thread (field 19 of /proc/<pid>/stat). */
function niceOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
}

it("a service started with PROCESS_NICE runs at that CPU priority; without it, at its parent's", async () => {
  const lowered = await launchService("scheduler", { ...h.world.env, PROCESS_NICE: "10" }, processes);
  const plain = await launchService("scheduler", h.world.env, processes);
  expect(niceOf(lowered.service.child.pid!)).toBe(niceOf(process.pid) + 10);
  expect(niceOf(plain.service.child.pid!)).toBe(niceOf(process.pid));
});
