/** One Jest config for the workspace, in two projects by the test convention (docs/testing.md):
 * `unit` (`*.test.ts`: pure, no PostgreSQL, Redis or spawned bundle; `pnpm test:unit` runs
 * them in seconds) and `integration` (`*.integration.test.ts` against PostgreSQL and Redis,
 * `*.process.test.ts` running built bundles as child processes, `*.e2e.test.ts` in a browser).
 * @swc/jest compiles TypeScript (and ESM-only dependencies such as got, hence
 * transformIgnorePatterns: []) to CommonJS. */
const base = {
  testEnvironment: "node",
  roots: ["<rootDir>/packages", "<rootDir>/services", "<rootDir>/deploy", "<rootDir>/e2e"],
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  transform: {
    "^.+\\.(t|j|mj)s$": ["@swc/jest", { jsc: { target: "es2022" }, module: { type: "commonjs" } }],
  },
  transformIgnorePatterns: [],
  // The generated Prisma client imports its siblings as "./x.js"; the sources are ./x.ts.
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
};

const NOT_UNIT = "\\.(integration|process|e2e)\\.test\\.ts$";

module.exports = {
  projects: [
    {
      ...base,
      displayName: "unit",
      testMatch: ["**/*.test.ts"],
      testPathIgnorePatterns: ["/node_modules/", NOT_UNIT],
    },
    {
      ...base,
      displayName: "integration",
      testMatch: ["**/*.integration.test.ts", "**/*.process.test.ts", "**/*.e2e.test.ts"],
      // Finds PostgreSQL and Redis and migrates the template database every test world clones.
      globalSetup: "<rootDir>/packages/testing/src/global-setup.ts",
      globalTeardown: "<rootDir>/packages/testing/src/global-teardown.ts",
    },
  ],
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker runs a hundred files in one process, and each leaves some heap behind (module
  // registries, pools' caches): one ran out of memory in a CI run. A worker over this after a
  // file is replaced by a fresh one before the next.
  workerIdleMemoryLimit: "1GB",
  reporters: ["default", "<rootDir>/scripts/jest-summary-reporter.js"],
};
