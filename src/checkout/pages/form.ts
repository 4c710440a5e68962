// The shopper's form post (application/x-www-form-urlencoded). The three card fields are taken out
// at parse time into private storage: whatever later logs or serialises the request body (an error
// logger, a debugging hook) sees only the other fields, never the card number or the CVC (§The simulated acquirer).

const CARD_FIELDS = ['cardNumber', 'expiryDate', 'cvc'] as const;

interface RawCard {
  cardNumber: string;
  expiryDate: string;
  cvc: string;
}

export class PageForm {
  readonly #fields = new Map<string, string>();
  #card: RawCard | null;

  constructor(body: string) {
    const params = new URLSearchParams(body);
    const card: RawCard = { cardNumber: '', expiryDate: '', cvc: '' };
    let hasCard = false;
    for (const [name, value] of params) {
      if ((CARD_FIELDS as readonly string[]).includes(name)) {
        card[name as keyof RawCard] = value;
        hasCard = true;
      } else if (!this.#fields.has(name)) {
        this.#fields.set(name, value);
      }
    }
    this.#card = hasCard ? card : null;
  }

  get(name: string): string | undefined {
    return this.#fields.get(name);
  }

  /** The card fields, once: the form forgets them as it hands them over. */
  takeCard(): RawCard {
    const card = this.#card ?? { cardNumber: '', expiryDate: '', cvc: '' };
    this.#card = null;
    return card;
  }

  toJSON(): Record<string, string> {
    return Object.fromEntries(this.#fields);
  }
}
