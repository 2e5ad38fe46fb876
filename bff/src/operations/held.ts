import type { OperationRecord } from '../storage/ledger.ts';

/** An operation held pending as /v1/usage and the console show it (what happened and what to fix, never text or a key). */
export const heldOperation = (record: OperationRecord) => ({
  operationId: record.operationId,
  product: record.product,
  code: record.held!.error.error.code,
  message: `This check may have been charged upstream, and its answer could not be fetched: ${record.held!.error.error.message} It stays pending, its words are counted once it is fetched, and it is tried again at ${record.held!.resumeAfter}, when the BFF restarts, or when its operation id is repeated.`,
  heldResumes: record.held!.resumes,
  resumeAfter: record.held!.resumeAfter,
});
