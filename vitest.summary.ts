import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

/**
 * Ends the run with plain lines any CI can read: one `FAILED <file> > <test>: <first line of the
 * error>` per failed test, one `UNHANDLED <error>` per error outside a test, then
 * `Summary: N passed, N failed, N skipped[, N unhandled errors]`. `scripts/test.mjs` repeats these
 * lines at the very end of `pnpm test`, so a CI log that keeps only its tail still names the failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    _reason: TestRunEndReason,
  ): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const lines: string[] = [];
    for (const testModule of testModules) {
      const moduleErrors = testModule.errors();
      if (moduleErrors.length > 0) {
        lines.push(`FAILED ${where(testModule)}: ${firstLine(moduleErrors[0])}`);
      }
      for (const test of testModule.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') counts.passed++;
        else if (result.state === 'failed') {
          counts.failed++;
          lines.push(`FAILED ${where(testModule)} > ${test.fullName}: ${firstLine(result.errors?.[0])}`);
        } else counts.skipped++;
      }
    }
    for (const error of unhandledErrors) lines.push(`UNHANDLED ${firstLine(error)}`);
    const unhandled = unhandledErrors.length > 0 ? `, ${unhandledErrors.length} unhandled errors` : '';
    lines.push(
      `Summary: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped${unhandled}`,
    );
    process.stdout.write(`\n${lines.join('\n')}\n`);
  }
}

function firstLine(error: SerializedError | undefined): string {
  if (!error) return 'no error recorded';
  const text = `${error.name ?? 'Error'}: ${error.message ?? String(error)}`;
  const line = text.split('\n')[0] ?? text;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

function where(testModule: TestModule): string {
  const project = testModule.project.name;
  return project ? `[${project}] ${testModule.relativeModuleId}` : testModule.relativeModuleId;
}
