import fs from "node:fs";
import path from "node:path";

/*
 * docs/operations.md must document every setting every service reads. The settings are
 * read from the source of each services/<name>/src/config.ts (the zod object it parses
 * process.env with), not from a list kept beside the docs, so a new setting without a
 * row in its service's section fails here, and so does a row left behind for a setting
 * that no longer exists.
 */

const ROOT = path.resolve(__dirname, "../../..");
const DOC_PATH = path.join(ROOT, "docs/operations.md");
const SHARED_HEADING = "Settings every service shares";
const SHARED_ANCHOR = "#settings-every-service-shares";
const SETTING_KEY = /^\s+([A-Z][A-Z0-9_]+):/gm;
const SPREAD = /^\s+\.\.\.([A-Za-z_$][\w$]*),?$/gm;
const SETTING_ROW = /^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|/gm;

/**
 * The source of an object literal: from the line that opens it to the line that closes it
 * at column 0 (as Prettier writes a top-level one), through any `}).extend({` that continues it.
 */
function objectAt(source: string, opening: RegExp, file: string): string {
  const start = source.search(opening);
  if (start < 0) throw new Error(`${file}: no ${opening} found; the settings cannot be read`);
  const lines = source.slice(start).split("\n");
  const continues = /^\}\)\.(?:extend|merge|safeExtend)\(/;
  const end = lines.findIndex((line) => line.startsWith("}") && !continues.test(line));
  if (end < 0) throw new Error(`${file}: the object opened by ${opening} never closes at column 0`);
  return lines.slice(0, end).join("\n");
}

function keysOf(objectSource: string): string[] {
  return [...objectSource.matchAll(SETTING_KEY)].map((match) => match[1]!);
}

const CONFIG_FILE = "packages/config/src/index.ts";

/** The names in one of @sms/config's groups of settings, which services spread into their own object. */
function readSettingsGroup(group: string): string[] {
  const source = fs.readFileSync(path.join(ROOT, CONFIG_FILE), "utf8");
  return keysOf(objectAt(source, new RegExp(`^export const ${group} = \\{$`, "m"), CONFIG_FILE));
}

/**
 * Groups a service may spread whose settings are documented in the service's own section (each
 * service says what they mean to it); commonSettings has a section of its own.
 */
const OWN_GROUPS = new Map(
  ["segmentSettings", "eventRelaySettings"].map((group) => [group, readSettingsGroup(group)] as const),
);

interface ServiceSettings {
  service: string;
  /** Settings documented in the service's own section: its own, and those of the groups in OWN_GROUPS it spreads. */
  own: string[];
  /** Whether it spreads commonSettings (documented once, in the shared section). */
  spreadsCommon: boolean;
}

function readServiceSettings(service: string): ServiceSettings {
  const file = `services/${service}/src/config.ts`;
  const source = fs.readFileSync(path.join(ROOT, file), "utf8");
  const object = objectAt(source, /^(?:export )?const \w+ = z\.object\(\{$/m, file);
  const spreads = [...object.matchAll(SPREAD)].map((match) => match[1]!);
  const unknown = spreads.filter((name) => name !== "commonSettings" && !OWN_GROUPS.has(name));
  // A spread of something else would hide its settings from this check: refuse it rather than pass.
  if (unknown.length > 0)
    throw new Error(`${file}: spreads ${unknown.join(", ")}, which this test cannot read`);
  const grouped = spreads.flatMap((name) => OWN_GROUPS.get(name) ?? []);
  return { service, own: [...keysOf(object), ...grouped], spreadsCommon: spreads.includes("commonSettings") };
}

function servicesWithConfig(): string[] {
  return fs
    .readdirSync(path.join(ROOT, "services"))
    .filter((name) => fs.existsSync(path.join(ROOT, "services", name, "src/config.ts")))
    .sort();
}

/** The doc's level-2 sections by heading: "## dispatcher" → "dispatcher"; the text up to the next "## ". */
function sectionsOf(doc: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = doc.split(/^## /m).slice(1);
  for (const part of parts) {
    const heading = part.slice(0, part.indexOf("\n")).trim();
    sections.set(heading.replace(/`/g, ""), part);
  }
  return sections;
}

function rowsOf(section: string): string[] {
  return [...section.matchAll(SETTING_ROW)].map((match) => match[1]!);
}

describe("docs/operations.md", () => {
  const doc = fs.readFileSync(DOC_PATH, "utf8");
  const sections = sectionsOf(doc);
  const common = readSettingsGroup("commonSettings");
  const services = servicesWithConfig().map(readServiceSettings);

  it("reads the settings from the source (the check is not vacuous)", () => {
    expect(common).toEqual(expect.arrayContaining(["DATABASE_URL", "REDIS_URL", "LOG_LEVEL"]));
    expect(services.map((s) => s.service)).toEqual(
      expect.arrayContaining(["api-gateway", "dispatcher", "dlr-ingest", "scheduler", "webhook-delivery"]),
    );
    expect(services.filter((s) => s.own.length === 0).map((s) => s.service)).toEqual([]);
    expect(services.find((s) => s.service === "dispatcher")?.own).toEqual(
      expect.arrayContaining(["DISPATCH_CONCURRENCY_HIGH", "SECRET_ENCRYPTION_KEY", "MAX_SEGMENTS"]),
    );
  });

  it("has a section for every service with a config.ts", () => {
    const missing = services.map((s) => s.service).filter((service) => !sections.has(service));
    expect(missing).toEqual([]);
  });

  it("documents every shared setting in its own section", () => {
    const rows = rowsOf(sections.get(SHARED_HEADING) ?? "");
    expect(common.filter((name) => !rows.includes(name))).toEqual([]);
    expect(rows.filter((name) => !common.includes(name))).toEqual([]);
  });

  it("documents every setting of every service as a row of that service's section", () => {
    const missing: string[] = [];
    for (const { service, own, spreadsCommon } of services) {
      const section = sections.get(service) ?? "";
      const rows = rowsOf(section);
      for (const name of own) if (!rows.includes(name)) missing.push(`${service}: ${name}`);
      if (spreadsCommon && !section.includes(SHARED_ANCHOR))
        missing.push(`${service}: a link to ${SHARED_ANCHOR} (it reads the shared settings)`);
    }
    expect(missing).toEqual([]);
  });

  it("has no rows for settings a service does not read", () => {
    const stale: string[] = [];
    for (const { service, own } of services)
      for (const name of rowsOf(sections.get(service) ?? ""))
        if (!own.includes(name)) stale.push(`${service}: ${name}`);
    expect(stale).toEqual([]);
  });
});

/*
 * The settings are written once: a README that kept a table of its own drifted from the code
 * (the service READMEs did, before this check). A README links to its section of
 * docs/operations.md instead.
 */
describe("READMEs", () => {
  const SETTING_TABLE_ROW =
    /^\|\s*`?[A-Z][A-Z0-9_]{3,}`?(?:\s*[,/]\s*`?_?[A-Z0-9_]+`?)*\s*\|\s*[^|]+\|\s*[^|]*\|\s*$/gm;
  const readmes = [
    "README.md",
    ...fs
      .readdirSync(path.join(ROOT, "services"))
      .map((service) => path.join("services", service, "README.md"))
      .filter((file) => fs.existsSync(path.join(ROOT, file))),
  ];

  it("finds the service READMEs (the check is not vacuous)", () => {
    expect(readmes).toEqual(
      expect.arrayContaining(["services/dispatcher/README.md", "services/otp-sweeper/README.md"]),
    );
  });

  it("carry no settings table of their own: they link to docs/operations.md", () => {
    const tables = readmes.flatMap((file) =>
      [...fs.readFileSync(path.join(ROOT, file), "utf8").matchAll(SETTING_TABLE_ROW)]
        .map((match) => match[0])
        .filter((row) =>
          settingNamesOf(row).some((name) => /_/.test(name) || ["PORT", "HOST"].includes(name)),
        )
        .map((row) => `${file}: ${row}`),
    );
    expect(tables).toEqual([]);
  });
});

function settingNamesOf(row: string): string[] {
  return (row.split("|")[1] ?? "").match(/[A-Z][A-Z0-9_]+/g) ?? [];
}
