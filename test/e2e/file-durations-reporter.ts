import path from 'node:path';
import type { Reporter, TestCase, TestResult } from '@playwright/test/reporter';

/**
 * Prints, at the end of a run, the minutes the 15 longest test files took (per project):
 * the end of CI's output is what a later session sees, and this says where the time went.
 */
export default class FileDurationsReporter implements Reporter {
  readonly #byFile = new Map<string, { ms: number; tests: number }>();

  onTestEnd(test: TestCase, result: TestResult): void {
    const project = test.parent.project()?.name ?? '';
    const key = `${project} ${path.relative(process.cwd(), test.location.file)}`;
    const entry = this.#byFile.get(key) ?? { ms: 0, tests: 0 };
    entry.ms += result.duration;
    entry.tests += 1;
    this.#byFile.set(key, entry);
  }

  onEnd(): void {
    const rows = [...this.#byFile].sort((a, b) => b[1].ms - a[1].ms);
    const total = rows.reduce((sum, [, entry]) => sum + entry.ms, 0);
    console.log(`\nTime per test file (${(total / 60_000).toFixed(1)} min in tests):`);
    for (const [file, { ms, tests }] of rows.slice(0, 15)) console.log(`  ${(ms / 60_000).toFixed(1).padStart(5)} min  ${String(tests).padStart(4)} tests  ${file}`);
  }

  printsToStdio(): boolean {
    return false;
  }
}
