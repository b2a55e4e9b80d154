import { createLogger } from "./index";

/** A log field that counts how often the JSON format reads it. */
function probe() {
  const seen = { count: 0 };
  return { seen, field: { toJSON: () => ++seen.count } };
}

describe("createLogger", () => {
  const silent = process.env.LOG_SILENT;
  beforeAll(() => (process.env.LOG_SILENT = "true"));
  afterAll(() => (process.env.LOG_SILENT = silent));

  it("does not format a call below its level", () => {
    const logger = createLogger("test", "warn");
    const { seen, field } = probe();
    logger.debug("below", { field });
    logger.info("below", { field });
    expect(seen.count).toBe(0);
    logger.warn("at", { field });
    logger.error("above", { field });
    expect(seen.count).toBe(2);
  });

  it("applies the same check to a child logger, with the level its parent has now", () => {
    const logger = createLogger("test", "warn");
    const child = logger.child({ request_id: "req_1" });
    const { seen, field } = probe();
    child.debug("below", { field });
    expect(seen.count).toBe(0);
    logger.level = "debug";
    child.debug("now on", { field });
    expect(seen.count).toBe(1);
  });

  it("writes what it formats, with the service and the child's context", () => {
    const logger = createLogger("svc", "info");
    const lines: unknown[] = [];
    logger.on("data", (info) => lines.push(info));
    logger.child({ request_id: "req_2" }).info("hello", { n: 1 });
    logger.debug("dropped");
    expect(lines).toEqual([
      expect.objectContaining({ message: "hello", service: "svc", request_id: "req_2", n: 1 }),
    ]);
  });
});
