/** pnpm test:containers: the tests that need a Docker engine (deploy/test/run.sh builds first).
 * Compiled as the workspace's jest.config.js compiles; no global setup (they start their own servers). */
module.exports = {
  rootDir: "../..",
  testEnvironment: "node",
  roots: ["<rootDir>/deploy/test"],
  testMatch: ["**/*.containers.ts"],
  moduleFileExtensions: ["ts", "js", "mjs", "cjs", "json"],
  transform: {
    "^.+\\.(t|j|mj)s$": ["@swc/jest", { jsc: { target: "es2022" }, module: { type: "commonjs" } }],
  },
  transformIgnorePatterns: [],
  moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
  testTimeout: 120000,
  maxWorkers: 1,
  reporters: ["default", "<rootDir>/scripts/jest-summary-reporter.js"],
};
