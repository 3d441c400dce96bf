import * as z from 'zod/mini';
import { SEVERITIES } from '../model';

/**
 * The events of review, spread into the kernel's event table (events/eventTypes.ts; a goal's review setting is a goal
 * event: goals/goalEventSchemas.ts): an implementer submits its change; a reviewer claims the review, and approves, asks for changes, or says it could not
 * review; a person may give either verdict instead (`byPerson`).
 */
export function reviewEventSchemas() {
  const str = z.string();
  const nullableStr = z.nullable(str);
  const scope = z.object({ base: nullableStr, head: nullableStr, diffHash: nullableStr, files: z.array(str) });
  const finding = z.object({
    severity: z.enum(SEVERITIES),
    confidence: z.number(),
    file: nullableStr,
    line: z.nullable(z.int()),
    title: str,
    body: str,
  });
  const verdict = {
    previousOwner: nullableStr,
    round: z.int(),
    summary: str,
    findings: z.array(finding),
    scope,
    host: nullableStr,
    byPerson: z.boolean(),
  };
  return {
    'todo.submitted': z.object({ previousOwner: str, round: z.int(), host: nullableStr, scope, validation: str }),
    'todo.review_claimed': z.object({ owner: str, leaseToken: str, leaseExpiresAt: str, host: nullableStr }),
    'todo.review_released': z.object({ previousOwner: str, note: nullableStr }),
    'todo.approved': z.object(verdict),
    'todo.changes_requested': z.object(verdict),
    'todo.review_unable': z.object({ previousOwner: nullableStr, round: z.int(), reason: str, host: nullableStr, escalated: z.boolean() }),
  };
}
