import fs from "node:fs";
import path from "node:path";

/** The repository's root: tests that check the workspace's own files read them from here. */
export const REPO_ROOT = path.resolve(__dirname, "../../..");

// Dependencies, build output, generated code and tool folders: never the workspace's own source.
const NEVER = new Set(["node_modules", "dist", "generated", "coverage", "artifacts"]);

/** Every file under `dir` (absolute paths) that `keep` accepts, dot entries and the folders above aside. */
export function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (NEVER.has(entry.name) || entry.name.startsWith(".")) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, keep);
    return keep(full) ? [full] : [];
  });
}
