import { parseEventTypes, EventTypesError, type EventSubscription } from "@sms/webhooks";

/** What the events form sent, kept to show it again beside an error. */
export interface EventsForm {
  all: boolean;
  types: string[];
}

/**
 * Reads the webhook page's events form: `events=all`, or `events=some` with one `types`
 * field per ticked box. Unknown types (a forged form) and no box ticked become a form error.
 */
export function parseEventsForm(body: Record<string, unknown>): {
  form: EventsForm;
  value?: EventSubscription;
  error?: string;
} {
  const raw = body.types;
  const types = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
    .filter((t): t is string => typeof t === "string")
    .slice(0, 20);
  const form = { all: body.events === "all", types };
  if (form.all) return { form, value: null };
  if (body.events !== "some") return { form, error: "Choose all events, or only the ones ticked below." };
  if (types.length === 0)
    return {
      form,
      error: "Tick at least one event, or choose all events. To receive none, disable the endpoint.",
    };
  try {
    return { form, value: parseEventTypes(types) };
  } catch (error) {
    if (error instanceof EventTypesError)
      return { form, error: `${error.message[0]!.toUpperCase()}${error.message.slice(1)}.` };
    throw error;
  }
}
