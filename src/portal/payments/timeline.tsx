import type { Html } from '../../html/jsx-runtime.js';
import type { View } from '../view.js';
import { Time } from '../views/components.js';

// A payment's timeline on its page: each moment of its story (authorised, each modification asked
// and completed, its authorisation's expiry) with its time and tone.

/** One moment of a payment's story. */
export interface Moment {
  at: Date;
  text: string;
  detail?: string;
  tone: 'ok' | 'warn' | 'bad' | 'neutral' | 'info';
}

/** The moments, oldest first, as the page shows them. */
export function Timeline({ view, moments }: { view: View; moments: readonly Moment[] }): Html {
  return (
    <ol class="timeline">
      {moments.map((m) => (
        <li>
          <Time view={view} at={m.at} seconds />
          <span class={`dot dot-${m.tone}`} aria-hidden="true" />
          <span>{m.text}</span>
          {m.detail ? <div class="muted small">{m.detail}</div> : null}
        </li>
      ))}
    </ol>
  );
}
