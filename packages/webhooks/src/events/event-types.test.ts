import {
  EventTypesError,
  WEBHOOK_EVENT_TYPES,
  isSubscribed,
  parseEventSubscription,
  parseEventTypes,
  resolveEventTypes,
} from "./index";

describe("webhook event types", () => {
  it("keeps known types in the documented order, without duplicates or blanks", () => {
    expect(parseEventTypes([" message.failed", "message.delivered", "message.failed", ""])).toEqual([
      "message.delivered",
      "message.failed",
    ]);
  });

  it("refuses an unknown type, naming it and the allowed ones", () => {
    expect(() => parseEventTypes(["message.delivered", "message.bounced"])).toThrow(
      new EventTypesError(
        'unknown event type "message.bounced"; allowed: message.queued, message.sent, message.delivered, message.failed, message.received',
      ),
    );
    // webhook.test is always sent: it is not something to subscribe to.
    expect(() => parseEventTypes(["webhook.test"])).toThrow(EventTypesError);
  });

  it("refuses an empty list: an endpoint that wants nothing is disabled instead", () => {
    expect(() => parseEventTypes([])).toThrow(/at least one event type/);
    expect(() => parseEventSubscription(" , ")).toThrow(/at least one event type/);
  });

  it("reads 'all' as every event (null) and a comma-separated list as that list", () => {
    expect(parseEventSubscription("all")).toBeNull();
    expect(parseEventSubscription(" ALL ")).toBeNull();
    expect(parseEventSubscription("message.delivered,message.failed")).toEqual([
      "message.delivered",
      "message.failed",
    ]);
  });

  it("null subscribes to everything; a list to exactly its types", () => {
    expect(isSubscribed(null, "message.queued")).toBe(true);
    expect(isSubscribed(["message.delivered"], "message.delivered")).toBe(true);
    expect(isSubscribed(["message.delivered"], "message.queued")).toBe(false);
    expect(resolveEventTypes(null)).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect(resolveEventTypes(["message.failed"])).toEqual(["message.failed"]);
  });
});
