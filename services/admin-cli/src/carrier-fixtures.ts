// Test support (imported only by *.test.ts): the carriers the carrier command tests add.
import type { CliHarness } from "./cli-harness";

// Distinctive enough that finding it anywhere in the output can only mean a leak.
export const PASSWORD = "Zq7#p w!";

let counter = 0;
/** A carrier id no other test in this test file uses. */
export const nextCarrierId = () => `carrier-${++counter}`;

/** Adds a carrier with the required options plus `extra`, and expects it to work. */
export async function addTestCarrier(cli: CliHarness, id: string, ...extra: string[]) {
  const result = await cli.run(
    "carrier",
    "add",
    id,
    "--host",
    "smpp.acme.example",
    "--port",
    "2775",
    "--system-id",
    "acme01",
    "--password",
    PASSWORD,
    ...extra,
  );
  expect(result).toMatchObject({ code: 0, stderr: "" });
  return result;
}
