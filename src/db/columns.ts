/**
 * The rows' values key by key: one array per key, in the order given. These are the array parameters
 * of a statement that writes many rows at once (`INSERT … SELECT … FROM unnest($1::text[], …)`), one
 * round trip however many rows.
 */
export function columnsOf<R, K extends keyof R>(rows: readonly R[], ...keys: K[]): R[K][][] {
  return keys.map((k) => rows.map((r) => r[k]));
}
