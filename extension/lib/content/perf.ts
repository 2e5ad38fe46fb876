/**
 * Runs `work` inside a User Timing measure, so its cost can be read from a trace
 * (`redline:draw`, `redline:update`) next to the page's own work.
 */
export function measured<T>(name: string, work: () => T): T {
  const start = performance.now();
  try {
    return work();
  } finally {
    performance.measure(name, { start, end: performance.now() });
    // A trace or an observer has seen it by now; the timeline buffer would only grow.
    performance.clearMeasures(name);
  }
}
