import type { Html } from '../../html/jsx-runtime.js';
import type { PublicView } from '../view.js';
import { Csrf } from './components.js';

/**
 * The form that confirms a change that cannot be undone (delete, disable, revoke, remove): a post with
 * its form token, the danger button, and the way back. The portal's script asks the question once
 * more before it posts. Without a button (a user cannot remove themselves) only the way back is left.
 */
export function ConfirmForm(p: { view: PublicView; action: string; question: string; button: string | null; back: string }): Html {
  return (
    <form method="post" action={p.action} data-confirm={p.question} class="form-actions">
      <Csrf view={p.view} />
      {p.button === null ? null : (
        <button type="submit" class="danger">
          {p.button}
        </button>
      )}
      <a href={p.back}>{p.view.t('cancel')}</a>
    </form>
  );
}
