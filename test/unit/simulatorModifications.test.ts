import { describe, expect, it } from 'vitest';
import { summarize } from '../../src/payments/card.js';
import { TEST_CARDS, simulatorAcquirer } from '../../src/payments/simulator.js';

// The simulator's answers for §Modifications and saved cards: modifications and token charges (the card decides, as in §The simulated acquirer).

const card = (number: string) => summarize({ number, expiryMonth: 12, expiryYear: 2039, cvc: '123' });
const at = new Date('2030-06-01T00:00:00Z');

describe('simulated acquirer, §Modifications and saved cards operations', () => {
  it('performs captures, refunds and cancels, except on the later-refused card', async () => {
    for (const kind of ['Capture', 'Refund', 'Cancel'] as const) {
      const base = { kind, reference: '1', originalReference: '2', amount: 100, currency: 'EUR' };
      expect(await simulatorAcquirer.modify({ ...base, card: card(TEST_CARDS.authorised) })).toEqual({ outcome: 'Succeeded' });
      expect(await simulatorAcquirer.modify({ ...base, card: card(TEST_CARDS.laterRefused) })).toEqual({ outcome: 'Refused', reason: 'Refused' });
    }
  });

  it('adjusts an authorisation up to twice the amount first authorised, except on the cards that refuse it', async () => {
    const base = { kind: 'Adjust' as const, reference: '1', originalReference: '2', currency: 'EUR', originalAmount: 1000 };
    const ok = card(TEST_CARDS.authorised);
    expect(await simulatorAcquirer.modify({ ...base, amount: 2000, card: ok })).toEqual({ outcome: 'Succeeded' });
    expect(await simulatorAcquirer.modify({ ...base, amount: 1, card: ok })).toEqual({ outcome: 'Succeeded' });
    expect(await simulatorAcquirer.modify({ ...base, amount: 2001, card: ok })).toEqual({
      outcome: 'Refused',
      reason: 'Amount exceeds 2 times the original authorisation',
    });
    expect(await simulatorAcquirer.modify({ ...base, amount: 1500, card: card(TEST_CARDS.adjustRefused) })).toEqual({
      outcome: 'Refused',
      reason: 'Adjustment Refused',
    });
    expect(await simulatorAcquirer.modify({ ...base, amount: 1500, card: card(TEST_CARDS.laterRefused) })).toEqual({ outcome: 'Refused', reason: 'Refused' });
    // The card that refuses adjustments is captured and refunded like any other.
    for (const kind of ['Capture', 'Refund', 'Cancel'] as const) {
      const req = { kind, reference: '1', originalReference: '2', amount: 100, currency: 'EUR', card: card(TEST_CARDS.adjustRefused) };
      expect(await simulatorAcquirer.modify(req)).toEqual({ outcome: 'Succeeded' });
    }
  });

  it('authorises a saved card (authorised at first, refused later for 5126), and refuses an expired one', async () => {
    const req = { token: 'tok_x', amount: 100, currency: 'EUR', shopperInteraction: 'ContAuth' as const, challengeAllowed: false, at };
    const ok = await simulatorAcquirer.authoriseToken({ ...req, card: card(TEST_CARDS.authorised) });
    expect(ok).toMatchObject({ outcome: 'Authorised', threeDAuthenticated: false, token: null });
    expect(
      await simulatorAcquirer.authorise({
        card: { number: TEST_CARDS.laterRefused, expiryMonth: 12, expiryYear: 2039, cvc: '123' },
        amount: 100,
        currency: 'EUR',
        tokenize: false,
        preAuth: false,
      }),
    ).toMatchObject({ outcome: 'Authorised' });
    expect(await simulatorAcquirer.authoriseToken({ ...req, card: card(TEST_CARDS.laterRefused) })).toMatchObject({ outcome: 'Refused', reason: 'Refused' });
    expect(await simulatorAcquirer.authoriseToken({ ...req, card: card(TEST_CARDS.authorised), at: new Date('2039-12-31T23:59:59Z') })).toMatchObject({
      outcome: 'Authorised',
    });
    expect(await simulatorAcquirer.authoriseToken({ ...req, card: card(TEST_CARDS.authorised), at: new Date('2040-01-01T00:00:00Z') })).toMatchObject({
      outcome: 'Refused',
      reason: 'Expired Card',
    });
  });

  it('asks for a 3-D Secure step on a saved 3220 card only when a shopper on the web can take it', async () => {
    const req = { token: 'tok_x', amount: 100, currency: 'EUR', at, card: card(TEST_CARDS.threeDSecure) };
    expect(await simulatorAcquirer.authoriseToken({ ...req, shopperInteraction: 'Ecommerce', challengeAllowed: true })).toMatchObject({
      outcome: 'ChallengeShopper',
    });
    expect(await simulatorAcquirer.authoriseToken({ ...req, shopperInteraction: 'Ecommerce', challengeAllowed: false })).toMatchObject({
      outcome: 'Authorised',
    });
    expect(await simulatorAcquirer.authoriseToken({ ...req, shopperInteraction: 'ContAuth', challengeAllowed: false })).toMatchObject({
      outcome: 'Authorised',
    });
    expect(
      await simulatorAcquirer.authoriseToken({ ...req, card: card(TEST_CARDS.authorised), shopperInteraction: 'Ecommerce', challengeAllowed: true }),
    ).toMatchObject({ outcome: 'Authorised' });
  });
});
