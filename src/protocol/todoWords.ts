import type { CardStatus } from './boardProtocol';

/** A todo's status in words for people (the Goals view's tooltip, the dashboard): the code stays in JSON. */
export const TODO_STATUS_WORDS: Record<CardStatus, string> = {
  open: 'open',
  claimed: 'in progress',
  in_review: 'in review',
  blocked: 'blocked',
  shipped: 'shipped',
  killed: 'killed',
};
