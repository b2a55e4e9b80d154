import type { ChildProcess } from "node:child_process";
import { startServiceProcess } from "@sms/testing";
import { startWebhookWorld, type WebhookWorld } from "./harness";
import { startReceiver, type ReceivedWebhook, type Receiver } from "./receiver";

/** The world and the receiver of one crash test file: made before its tests, closed after them. */
export function crashTestWorld(): { readonly w: WebhookWorld; readonly r: Receiver } {
  const made = {} as { w: WebhookWorld; r: Receiver };
  beforeAll(async () => {
    made.w = await startWebhookWorld();
    made.r = await startReceiver();
  });
  afterAll(async () => {
    await made.w.close();
    await made.r.close();
  });
  return made;
}

/**
 * A webhook-delivery bundle as an orchestrator runs it, for the tests that kill and restart it:
 * the killed process's stalled jobs are taken over within a few seconds.
 */
export function launchWebhookDelivery(w: WebhookWorld, env: Record<string, string> = {}): ChildProcess {
  return startServiceProcess("webhook-delivery", {
    ...w.env,
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_LOCK_MS: "3000",
    WEBHOOK_STALLED_CHECK_MS: "1000",
    ...env,
  }).child;
}

/** Stops a launched process and waits for it to be gone. */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  child.kill(signal);
  await new Promise((resolve) => child.once("exit", resolve));
}

/** The webhook-ids each event (message and sequence) was sent under: at-least-once means one id per event, however many sends. */
export function idsByEvent(received: readonly ReceivedWebhook[]): Map<string, Set<string>> {
  const ids = new Map<string, Set<string>>();
  for (const hook of received) {
    const key = `${hook.body.message_id}/${String(hook.body.data.sequence)}`;
    ids.set(key, (ids.get(key) ?? new Set()).add(hook.id));
  }
  return ids;
}
