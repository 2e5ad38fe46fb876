/**
 * Which pairs of a large editor × case matrix a run tests. `npm test` (and so CI) runs each case
 * in a rotating share of the editors: every editor meets `perEditor` of the cases, every case
 * about editors ÷ (cases ÷ perEditor) editors, and the pairs in `pinned` (where a defect was once
 * found) always. `npm run test:e2e:full` (REDLINE_E2E_MATRIX=full) runs every pair.
 */
export const FULL_MATRIX = process.env.REDLINE_E2E_MATRIX === 'full';

export interface MatrixShare {
  caseCount: number;
  perEditor: number;
  /** Editor name → case names that run in every run. */
  pinned?: Record<string, readonly string[]>;
}

export function inMatrix(editor: { index: number; name: string }, testCase: { index: number; name: string }, share: MatrixShare): boolean {
  if (FULL_MATRIX) return true;
  if (share.pinned?.[editor.name]?.includes(testCase.name)) return true;
  const stride = Math.max(1, Math.ceil(share.caseCount / share.perEditor));
  return (editor.index + testCase.index) % stride === 0;
}

/** A pinned pair whose editor or case was renamed would silently stop running: refuse it. */
export function checkPinned(editorNames: readonly string[], caseNames: readonly string[], share: MatrixShare): void {
  for (const [editor, cases] of Object.entries(share.pinned ?? {})) {
    if (!editorNames.includes(editor)) throw new Error(`Pinned editor ${JSON.stringify(editor)} is not in the matrix`);
    for (const name of cases) if (!caseNames.includes(name)) throw new Error(`Pinned case ${JSON.stringify(name)} is not in the matrix`);
  }
}
