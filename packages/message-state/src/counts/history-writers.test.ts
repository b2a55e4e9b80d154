import fs from "node:fs";
import path from "node:path";

/*
 * The message counts are kept by the statements that write the status history, not by a trigger
 * (docs/decisions.md#count-deltas-by-writers): a statement that inserts into message_events and
 * appends no count deltas would leave the dashboard's counts and the open-message gauges short.
 * So every product source that writes history is named here, and each must append its deltas.
 * A new writer fails this test until it does, and is added below.
 */

const ROOT = path.resolve(__dirname, "../../../..");
const WRITES_HISTORY = /INSERT INTO message_events\b/;
const APPENDS_DELTAS = /\$\{MESSAGE_COUNT_DELTAS_OF_(ACCEPTED|CHANGES)\}/;
const KNOWN_WRITERS = [
  "packages/message-acceptance/src/persist.sql.ts",
  "packages/message-state/src/apply-transitions.sql.ts",
];

/** The TypeScript sources of every package and service, tests and generated code aside. */
function productSources(): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!["node_modules", "dist", "generated", "test"].includes(entry.name)) walk(full);
      } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        files.push(path.relative(ROOT, full));
      }
    }
  };
  for (const top of ["packages", "services"])
    for (const unit of fs.readdirSync(path.join(ROOT, top))) {
      const src = path.join(ROOT, top, unit, "src");
      if (fs.existsSync(src)) walk(src);
    }
  return files;
}

describe("writers of the status history", () => {
  const writers = productSources().filter((file) =>
    WRITES_HISTORY.test(fs.readFileSync(path.join(ROOT, file), "utf8")),
  );

  it("are the two known statements (acceptance, applyTransitions)", () => {
    expect(writers.sort()).toEqual(KNOWN_WRITERS);
  });

  it.each(KNOWN_WRITERS)("%s appends the message count deltas in the same statement", (file) => {
    expect(fs.readFileSync(path.join(ROOT, file), "utf8")).toMatch(APPENDS_DELTAS);
  });
});
