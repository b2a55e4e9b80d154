import fs from "node:fs";
import path from "node:path";
import { filesUnder, REPO_ROOT } from "@sms/testing";

/*
 * The message counts are kept by the statements that write the status history, not by a trigger
 * (docs/decisions.md#count-deltas-by-writers): a statement that inserts into message_events and
 * appends no count deltas would leave the dashboard's counts and the open-message gauges short.
 * So every product source that writes history is named here, and each must append its deltas.
 * A new writer fails this test until it does, and is added below.
 */

const WRITES_HISTORY = /INSERT INTO message_events\b/;
const APPENDS_DELTAS = /\$\{MESSAGE_COUNT_DELTAS_OF_(ACCEPTED|CHANGES)\}/;
const KNOWN_WRITERS = [
  "packages/message-acceptance/src/persist.sql.ts",
  "packages/message-state/src/apply-transitions.sql.ts",
];

/** The TypeScript sources of every package and service (relative paths), tests and their support aside. */
const productSources = () =>
  ["packages", "services"]
    .flatMap((top) =>
      filesUnder(
        path.join(REPO_ROOT, top),
        (file) =>
          file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.split(path.sep).includes("test"),
      ),
    )
    .map((file) => path.relative(REPO_ROOT, file));

describe("writers of the status history", () => {
  const writers = productSources().filter((file) =>
    WRITES_HISTORY.test(fs.readFileSync(path.join(REPO_ROOT, file), "utf8")),
  );

  it("are the two known statements (acceptance, applyTransitions)", () => {
    expect(writers.sort()).toEqual(KNOWN_WRITERS);
  });

  it.each(KNOWN_WRITERS)("%s appends the message count deltas in the same statement", (file) => {
    expect(fs.readFileSync(path.join(REPO_ROOT, file), "utf8")).toMatch(APPENDS_DELTAS);
  });
});
