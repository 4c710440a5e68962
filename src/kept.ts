// Values worth keeping because making them costs more than looking them up (an Intl format, a
// parsed URL, an opened secret, a drawn chart), in a map that cannot grow without bound: once it
// holds `limit` entries it is emptied and filled again. Made for sets that are small in practice (a
// worker's webhooks, a page's prices), where an emptied map refills at once.

export class Kept<K, V> {
  private readonly values = new Map<K, V>();

  constructor(private readonly limit: number) {}

  /** The kept value for `key`, made by `make` when there is none. */
  get(key: K, make: () => V): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = make();
      if (this.values.size >= this.limit) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }
}
