import { Type, type Static } from 'typebox';
import { WithEnvelope } from '../http/envelope.js';
import { ListAnswer, PagedQuery } from '../http/paging.js';

// The Settlements API (docs/api.md, Settlements): batches, their lines, and the sandbox's run. Money in minor units.

export const ListQuery = PagedQuery({});

const Minor = (description: string) => Type.Integer({ description });

export const BatchSchema = Type.Object({
  settlementId: Type.String({ description: 'stl_…' }),
  currency: Type.String(),
  cutoffAt: Type.String({ format: 'date-time', description: 'what was captured or refunded before this instant is in the batch' }),
  grossAmount: Minor('captures minus refunds, the sum of the lines’ amounts'),
  feeAmount: Minor('the sum of the lines’ fees'),
  netAmount: Minor('the payout: grossAmount − feeAmount (negative when refunds and fees exceed captures)'),
  lineCount: Type.Integer(),
});
export type Batch = Static<typeof BatchSchema>;

export const LineSchema = Type.Object({
  payfacReference: Type.String({ description: 'the capture’s or refund’s own payfacReference (an immediate capture’s is the payment’s)' }),
  originalPayfacReference: Type.String({ description: 'the payment’s payfacReference' }),
  type: Type.String({ enum: ['Capture', 'Refund'] }),
  amount: Minor('signed: positive for a capture, negative for a refund'),
  fee: Minor('what the line costs (0 for a refund)'),
  bookedAt: Type.String({ format: 'date-time', description: 'when it was captured or refunded' }),
});
export type Line = Static<typeof LineSchema>;

export const ListResponse = ListAnswer(BatchSchema, 'all batches of the merchant');

export const DetailsParams = Type.Object({ settlementId: Type.String({ minLength: 1, maxLength: 100 }) });
export const DetailsResponse = WithEnvelope({ settlement: Type.Object({ ...BatchSchema.properties, lines: Type.Array(LineSchema) }) });

export const SandboxRunResponse = WithEnvelope({
  data: Type.Array(BatchSchema, { description: 'the batches this run made (none when nothing was left to settle)' }),
});
