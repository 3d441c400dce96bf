import type { EventKind, StoredEvent } from './eventTypes';
import { eventDataSchemas } from './eventTypes';

/**
 * Why a stored event's data does not fit its kind (or the kind is unknown to this loopx), or null when it fits.
 * Only events loopx did not build itself are checked (setAside.ts's applyEvent: team catch-up, replay, rebuild), so
 * the schemas and zod stay out of an agent's call: agent bundles load this module from its own bundle,
 * dist/eventValidation.js, on the first such event (esbuild.mjs). It must stay a pure function of the event.
 */
export function invalidEventData(e: StoredEvent): string | null {
  const schema = (eventDataSchemas() as Record<string, { safeParse(data: unknown): { success: boolean; error?: unknown } }>)[
    e.kind as EventKind
  ];
  if (!schema) return `unknown event kind ${String(e.kind)}`;
  const parsed = schema.safeParse(e.data);
  if (parsed.success) return null;
  const issue = (parsed.error as { issues?: { path: PropertyKey[]; message: string }[] }).issues?.[0];
  return issue
    ? `its data does not fit ${e.kind}: ${issue.path.map(String).join('.') || 'data'}: ${issue.message}`
    : `its data does not fit ${e.kind}`;
}
