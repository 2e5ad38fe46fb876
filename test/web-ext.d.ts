/** The part of web-ext's programmatic API the tests use (web-ext ships no types). */
declare module 'web-ext' {
  const webExt: {
    cmd: {
      lint(options: { sourceDir: string; output?: 'json' | 'text' | 'none' }, extras?: { shouldExitProgram?: boolean }): Promise<unknown>;
    };
  };
  export default webExt;
}
