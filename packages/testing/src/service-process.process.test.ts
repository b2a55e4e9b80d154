import { spawn } from "node:child_process";
import path from "node:path";
import { createTestWorld, type TestWorld } from "./world";
import { freePort } from "./servers";
import { waitFor } from "./wait";

let world: TestWorld;
beforeAll(async () => {
  world = await createTestWorld();
});
afterAll(() => world.destroy());

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A Jest worker killed after a failed test runs no exit handler, so a service it started would
 * run on (two webhook-delivery processes did, for hours). A service started with an IPC channel,
 * as startServiceProcess starts them, stops when the channel closes.
 */
it("a service started over an IPC channel stops when the process that started it is killed", async () => {
  const port = await freePort();
  const bundle = path.resolve(__dirname, "../../../services/otp-sweeper/dist/main.js");
  const parent = spawn(
    process.execPath,
    [
      "-e",
      `const c = require("node:child_process").spawn(process.execPath, [${JSON.stringify(bundle)}],
         { stdio: ["ignore", "ignore", "ignore", "ipc"] });
       c.channel.unref();
       console.log(c.pid);`,
    ],
    { env: { ...process.env, ...world.env, PORT: String(port) }, stdio: ["ignore", "pipe", "inherit"] },
  );
  const childPid = await new Promise<number>((resolve) =>
    parent.stdout!.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  );
  await waitFor(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok === true,
    {
      what: "the otp-sweeper to answer",
      timeoutMs: 20_000,
    },
  );
  parent.kill("SIGKILL");
  await waitFor(() => !alive(childPid), { what: "the otp-sweeper to stop", timeoutMs: 10_000 });
});
