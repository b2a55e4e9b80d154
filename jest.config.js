/** One Jest config for the workspace: @swc/jest compiles TypeScript (and ESM-only
 * dependencies such as got, hence transformIgnorePatterns: []) to CommonJS. */
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/packages", "<rootDir>/services", "<rootDir>/deploy"],
  testMatch: ["**/*.test.ts"],
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  transform: {
    "^.+\\.(t|j|mj)s$": ["@swc/jest", { jsc: { target: "es2022" }, module: { type: "commonjs" } }],
  },
  transformIgnorePatterns: [],
  // The generated Prisma client imports its siblings as "./x.js"; the sources are ./x.ts.
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  globalSetup: "<rootDir>/packages/testing/src/global-setup.ts",
  globalTeardown: "<rootDir>/packages/testing/src/global-teardown.ts",
  testTimeout: 60000,
  maxWorkers: 2,
  // A worker runs a hundred files in one process, and each leaves some heap behind (module
  // registries, pools' caches): one ran out of memory in a CI run. A worker over this after a
  // file is replaced by a fresh one before the next.
  workerIdleMemoryLimit: "1GB",
  reporters: ["default", "<rootDir>/scripts/jest-summary-reporter.js"],
};
