// Lanes: another process of a service, with settings of its own. The
// dispatcher's high lane works OTPs and sends marked high beside the dispatcher of normal and
// bulk; webhook-delivery's sends their webhooks beside the one of every other event
// (docs/fairness.md#lanes). Read by npm start (run-all.mjs), the benches and the deploy checks.
/** @type {Record<string, import("./lanes.mjs").Lane>} */
export const lanes = {
  "dispatcher-high": {
    service: "dispatcher",
    env: { DISPATCH_CLASSES: "high" },
    narrows: { dispatcher: { DISPATCH_CLASSES: "normal,bulk" } },
  },
  "webhook-delivery-high": {
    service: "webhook-delivery",
    env: { WEBHOOK_CLASSES: "high", EVENT_RELAY_HIGH: "true" },
    narrows: { "webhook-delivery": { WEBHOOK_CLASSES: "standard" } },
  },
};

/** The service a process runs: a lane's, else its own name. */
export const serviceOf = (name) => lanes[name]?.service ?? name;

/**
 * Each process's settings from the lanes among `names`: a lane's own, and what it narrows in
 * the others it runs beside (without a lane, its service keeps every class).
 */
export function laneSettings(names) {
  const settings = Object.fromEntries(names.map((name) => [name, { ...lanes[name]?.env }]));
  for (const lane of names.filter((name) => lanes[name]))
    for (const [other, env] of Object.entries(lanes[lane].narrows ?? {}))
      if (settings[other]) Object.assign(settings[other], env);
  return settings;
}
