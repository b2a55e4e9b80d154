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

/**
 * The signed request of a test delivery to an endpoint's current target: what the admin
 * CLI's `webhook test` and the dashboard's "Send a test event" hand to the webhook sender.
 * The id is not a stored event's, so a receiver that dedupes on webhook-id sees each test.
 */
export function buildTestDelivery(
  target: { accountId: string; url: string; secrets: readonly string[] },
  now = new Date(),
): { url: string; secrets: readonly string[]; id: string; body: string } {
  return {
    url: target.url,
    secrets: target.secrets,
    id: `evt_test_${now.getTime()}`,
    body: buildTestEvent(target.accountId, now),
  };
}
