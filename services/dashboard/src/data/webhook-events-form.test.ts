import { parseEventsForm } from "./webhook-events-form";

describe("webhook events form", () => {
  it("reads all events as null and ticked boxes as the list", () => {
    expect(parseEventsForm({ events: "all", types: "message.sent" }).value).toBeNull();
    expect(parseEventsForm({ events: "some", types: "message.failed" }).value).toEqual(["message.failed"]);
    expect(parseEventsForm({ events: "some", types: ["message.failed", "message.delivered"] }).value).toEqual(
      ["message.delivered", "message.failed"],
    );
  });

  it("turns no box ticked, an unknown type or a strange body into a form error, never a throw", () => {
    expect(parseEventsForm({ events: "some" })).toMatchObject({
      error: expect.stringMatching(/at least one/),
    });
    const forged = parseEventsForm({ events: "some", types: ["message.sent", "message.bounced"] });
    expect(forged.value).toBeUndefined();
    expect(forged.error).toMatch(/^Unknown event type "message.bounced"; allowed: message.queued/);
    expect(parseEventsForm({}).error).toMatch(/Choose all events/);
    expect(parseEventsForm({ events: ["all"], types: { a: 1 } }).error).toMatch(/Choose all events/);
    expect(parseEventsForm({ events: "some", types: [1, "message.sent"] }).value).toEqual(["message.sent"]);
  });
});
