import { Router } from 'express';
import { z } from 'zod';
import { PRODUCTS } from '@redline/shared';
import { FaultRequest } from './faults.ts';
import type { UpstreamDouble } from './app.ts';

const ClockAdvance = z.object({ advanceMs: z.number().int().nonnegative() });
const KeyChange = z.object({ add: z.array(z.string().min(1)).optional(), remove: z.array(z.string().min(1)).optional() }).strict();
const BalanceUpdate = z.partialRecord(z.enum(PRODUCTS), z.number().int().nonnegative());

/** Test-mode control of the double: faults, clock, balances, and what was charged. */
export function controlRouter(double: UpstreamDouble): Router {
  const router = Router();

  router.get('/state', (_req, res) => {
    res.json({
      accounts: double.ledger.accounts().map((account) => ({
        id: account.id,
        balances: account.balances,
        charged: account.charged,
        providerRuns: account.providerRuns,
        records: account.records.size + account.expired.size,
      })),
      heldResponses: double.ledger.heldResponses(),
      pendingFaults: double.faults.pending,
      now: double.ledger.now(),
    });
  });

  router.get('/received', (_req, res) => {
    res.json(double.received);
  });

  router.post('/faults', (req, res) => {
    const parsed = z.array(FaultRequest).safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ detail: z.prettifyError(parsed.error) });
    for (const fault of parsed.data) double.faults.add(fault);
    res.json({ pendingFaults: double.faults.pending });
  });

  router.delete('/faults', (_req, res) => {
    double.faults.clear();
    res.json({ pendingFaults: 0 });
  });

  router.post('/clock', (req, res) => {
    const parsed = ClockAdvance.safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ detail: z.prettifyError(parsed.error) });
    double.ledger.advanceClock(parsed.data.advanceMs);
    res.json({ now: double.ledger.now() });
  });

  router.put('/accounts/:id/balances', (req, res) => {
    const account = double.ledger.account(req.params.id);
    if (!account) return void res.status(404).json({ detail: `No account ${req.params.id}.` });
    const parsed = BalanceUpdate.safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ detail: z.prettifyError(parsed.error) });
    Object.assign(account.balances, parsed.data);
    res.json({ balances: account.balances });
  });

  // The dashboard's key activation: new values start working, replaced ones stop, at once.
  router.post('/accounts/:id/keys', (req, res) => {
    const account = double.ledger.account(req.params.id);
    if (!account) return void res.status(404).json({ detail: `No account ${req.params.id}.` });
    const parsed = KeyChange.safeParse(req.body);
    if (!parsed.success) return void res.status(400).json({ detail: z.prettifyError(parsed.error) });
    try {
      double.ledger.changeKeys(account, parsed.data);
    } catch (error) {
      return void res.status(409).json({ detail: (error as Error).message });
    }
    res.json({ keys: account.keys.length });
  });

  router.post('/reset', (_req, res) => {
    double.reset();
    res.json({ reset: true });
  });

  return router;
}
