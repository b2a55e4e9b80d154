/**
 * The body of a test delivery (`webhook.test`): the shape of a real event so a receiver
 * can exercise its parser, with no message behind it.
 */
export function buildTestEvent(accountId: string, now = new Date()): string {
  return JSON.stringify({
    event: "webhook.test",
    message_id: null,
    timestamp: now.toISOString(),
    data: { account_id: accountId, note: "A test event sent when the endpoint was set or on request." },
  });
}
