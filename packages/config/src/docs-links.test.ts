import fs from "node:fs";
import path from "node:path";

/*
 * Comments and docs cite the reference as `docs/<page>.md#<anchor>` (docs/README.md): a heading
 * renamed, or an anchor never written, leaves a reader at the top of a long page. Every such
 * link, in the docs and READMEs and in the code's comments, must name a file that exists and an
 * anchor that page has (a heading's GitHub slug, or an explicit `<a id="…">`).
 */

const ROOT = path.resolve(__dirname, "../../..");
const SKIP = new Set(["node_modules", "dist", "generated", ".git", "coverage", "artifacts"]);
const SOURCES = /\.(md|ts|prisma|sql|ya?ml)$/;

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIP.has(entry.name) || entry.name.startsWith(".")) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full);
    return SOURCES.test(entry.name) ? [full] : [];
  });
}

/** GitHub's heading slug: lower case, markup and punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOf(file: string): Set<string> {
  const cached = anchorCache.get(file);
  if (cached) return cached;
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of fs.readFileSync(file, "utf8").split("\n")) {
    if (line.startsWith("```")) inCode = !inCode;
    if (inCode) continue;
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const slug = slugOf(heading[1]!);
      const count = seen.get(slug) ?? 0;
      seen.set(slug, count + 1);
      anchors.add(count ? `${slug}-${count}` : slug);
    }
    for (const [, id] of line.matchAll(/<a id="([^"]+)"/g)) anchors.add(id!);
  }
  anchorCache.set(file, anchors);
  return anchors;
}

interface Link {
  from: string;
  target: string;
  anchor: string | undefined;
}

function linksOf(file: string): Link[] {
  const text = fs.readFileSync(file, "utf8");
  const from = path.relative(ROOT, file);
  if (file.endsWith(".md"))
    return [...text.matchAll(/\]\(([^)\s#]*)(?:#([^)\s]+))?\)/g)]
      .filter(([, target]) => !/^[a-z]+:/.test(target!))
      .map(([, target, anchor]) => ({
        from,
        target: target ? path.join(path.dirname(file), target) : file,
        anchor,
      }));
  // In code, a citation is a repository path to a page.
  return [...text.matchAll(/\b((?:docs|packages|services)\/[\w./-]+\.md)(?:#([\w-]+))?/g)].map(
    ([, target, anchor]) => ({ from, target: path.join(ROOT, target!), anchor }),
  );
}

const links = ["docs", "services", "packages", "prisma", "e2e", "bench", "deploy", "scripts"]
  .filter((dir) => fs.existsSync(path.join(ROOT, dir)))
  .flatMap((dir) => filesUnder(path.join(ROOT, dir)))
  .concat(path.join(ROOT, "README.md"))
  .flatMap(linksOf);

it("finds the links it checks", () => {
  expect(links.filter((link) => link.anchor).length).toBeGreaterThan(100);
});

it("every link to a page names a file that exists and an anchor the page has", () => {
  const broken = links.flatMap(({ from, target, anchor }) => {
    if (!fs.existsSync(target)) return [`${from}: ${path.relative(ROOT, target)} does not exist`];
    if (!anchor || !target.endsWith(".md")) return [];
    return anchorsOf(target).has(anchor)
      ? []
      : [`${from}: ${path.relative(ROOT, target)}#${anchor} has no such anchor`];
  });
  expect(broken).toEqual([]);
});
