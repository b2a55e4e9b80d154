// Kannel (bearerbox + smsbox) for bench:e2e: installed with apt-get when missing, configured
// in a temporary directory, bound to our carrier simulator as one SMPP 3.4 transceiver (the
// simulator sends receipts to a receiver or transceiver bind of the submitting system_id), and
// HTTP sendsms with a dlr-url on 127.0.0.1.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const hasKannel = () => {
  try {
    execFileSync("sh", ["-c", "command -v bearerbox && command -v smsbox"], { stdio: "pipe" });
    return true;
  } catch {
    return false;
  }
};

/** True when bearerbox and smsbox can be run, installing Debian's kannel first if needed; else says why. */
export function ensureKannel(): { ok: true } | { ok: false; why: string } {
  if (hasKannel()) return { ok: true };
  if (process.getuid?.() !== 0)
    return { ok: false, why: "kannel is not installed and this is not root: run `apt-get install kannel`" };
  try {
    console.log("kannel is not installed: apt-get update -qq && apt-get install -y -qq kannel");
    execFileSync("apt-get", ["update", "-qq"], { stdio: "pipe" });
    execFileSync("apt-get", ["install", "-y", "-qq", "kannel"], {
      stdio: "pipe",
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  } catch (error) {
    const output = String((error as { stderr?: Buffer }).stderr ?? error)
      .trim()
      .split("\n")
      .at(-1);
    return { ok: false, why: `apt-get install kannel failed: ${output}` };
  }
  return hasKannel()
    ? { ok: true }
    : { ok: false, why: "apt-get installed kannel but bearerbox is not on PATH" };
}

export interface Kannel {
  bearerbox: ChildProcess;
  smsbox: ChildProcess;
  /** The sendsms URL of one message to `to`, whose delivery is reported to `dlrUrl`. */
  sendsmsUrl(to: string, dlrUrl: string): string;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, deadlineMs: number, ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await ready().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Kannel: ${what} within ${deadlineMs / 1000} s`);
    await sleep(200);
  }
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts bearerbox (admin on ports.admin, boxes on ports.box) with one SMPP transceiver to
 * smscPort (system_id kannel, window of `window` submits), and smsbox (sendsms on
 * ports.sendsms); resolves once the SMSC link is online and sendsms answers.
 */
export async function startKannel(options: {
  smscPort: number;
  ports: { admin: number; box: number; sendsms: number };
  window: number;
}): Promise<Kannel> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-kannel-"));
  const config = path.join(dir, "kannel.conf");
  writeFileSync(
    config,
    `group = core
admin-port = ${options.ports.admin}
admin-password = bench
admin-allow-ip = "127.0.0.1"
smsbox-port = ${options.ports.box}
box-allow-ip = "127.0.0.1"
log-file = "${dir}/bearerbox.log"
log-level = 2
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = sim
host = 127.0.0.1
port = ${options.smscPort}
transceiver-mode = true
smsc-username = "kannel"
smsc-password = "kannel"
system-type = ""
interface-version = 34
max-pending-submits = ${options.window}
enquire-link-interval = 30
log-level = 2

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${options.ports.box}
sendsms-port = ${options.ports.sendsms}
sendsms-interface = 127.0.0.1
log-file = "${dir}/smsbox.log"
log-level = 2

group = sendsms-user
username = bench
password = bench
max-messages = 1

group = sms-service
keyword = default
text = "not used"
`,
  );
  const quiet = { stdio: ["ignore", "ignore", "ignore"] as const };
  const bearerbox = spawn("bearerbox", ["-v", "4", config], { ...quiet, stdio: [...quiet.stdio] });
  let smsbox: ChildProcess | undefined;
  const stopBoxes = async () => {
    if (smsbox) await stopProcess(smsbox);
    await stopProcess(bearerbox);
  };
  try {
    const status = `http://127.0.0.1:${options.ports.admin}/status.xml?password=bench`;
    await waitFor("the SMPP link to the simulator did not come online", 30_000, async () =>
      /<status>online/.test(await (await fetch(status)).text()),
    );
    smsbox = spawn("smsbox", ["-v", "4", config], { stdio: [...quiet.stdio] });
    await waitFor("sendsms did not answer", 30_000, async () => {
      await fetch(`http://127.0.0.1:${options.ports.sendsms}/cgi-bin/sendsms`);
      return true;
    });
  } catch (error) {
    await stopBoxes();
    throw new Error(`${(error as Error).message} (logs are in ${dir})`, { cause: error });
  }
  return {
    bearerbox,
    smsbox: smsbox!,
    sendsmsUrl: (to, dlrUrl) =>
      `http://127.0.0.1:${options.ports.sendsms}/cgi-bin/sendsms?` +
      new URLSearchParams({
        username: "bench",
        password: "bench",
        from: "BENCH",
        to,
        text: "Kannel benchmark message",
        "dlr-mask": "1",
        "dlr-url": `${dlrUrl}?type=%d&id=%I`,
      }).toString(),
    async stop() {
      await stopBoxes();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
