/**
 * Buttons that change something carry `data-acts`. While the board shows a past moment they are inert: marked
 * disabled for screen readers, dimmed, with a tooltip that says why (a click says it too, in main.ts).
 */
export const ACTS = { 'data-acts': '' } as const;
/** What a person is told when something would act on the past board: the tooltip and the click's notice. */
export const READ_ONLY_WORDS = 'This is the board as it was then. Go back to now to change anything.';

function mark(root: ParentNode, past: boolean): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-acts]')) {
    if (past && el.getAttribute('aria-disabled') !== 'true') {
      el.setAttribute('aria-disabled', 'true');
      el.dataset.title = el.title;
      el.title = READ_ONLY_WORDS;
    } else if (!past && el.getAttribute('aria-disabled') === 'true') {
      el.removeAttribute('aria-disabled');
      el.title = el.dataset.title ?? '';
      delete el.dataset.title;
    }
  }
}

/** Whatever renders while the past is shown (cards, the detail pane, the attention strip) is marked as it lands. */
const observer = new MutationObserver(() => mark(document.body, true));

export function showPast(past: boolean): void {
  document.body.classList.toggle('past-mode', past);
  observer.disconnect();
  mark(document.body, past);
  if (past) observer.observe(document.body, { childList: true, subtree: true });
}
