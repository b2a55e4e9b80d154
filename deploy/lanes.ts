import { readFileSync } from "node:fs";
import path from "node:path";

/** A lane (scripts/lanes.json): another container or Deployment of a service, with settings of its own. */
export interface Lane {
  service: string;
  env?: Record<string, string>;
  /** Settings it gives other processes when it runs beside them (the dispatcher narrowed to the other classes). */
  narrows?: Record<string, Record<string, string>>;
}

export const lanes: Record<string, Lane> = JSON.parse(
  readFileSync(path.join(__dirname, "..", "scripts", "lanes.json"), "utf8"),
);
