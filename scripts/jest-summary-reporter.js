// Prints one plain closing line, "tests: N passed, N failed, N skipped", which CI
// tooling that does not know Jest's own summary can read.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    console.log(
      `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped`,
    );
  }
}
module.exports = SummaryReporter;
