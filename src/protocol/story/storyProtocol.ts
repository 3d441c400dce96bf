/** The story's data is one shape for the kernel and the view (src/shared/storyTypes.ts); the messages are the view's. */
import type { Story } from '../../shared/storyTypes';

export type { Story, StoryDay, StoryItem, StoryItemKind, TimeKind } from '../../shared/storyTypes';

/** The story panel's webview type (package.json's onWebviewPanel activation event names it too). */
export const STORY_VIEW_TYPE = 'loopx.story';

/** Webview → host; parsed with storySchemas.ts before anything happens. */
export type ToStoryHost =
  | { type: 'ready' }
  | { type: 'pickGoal'; goalId: string }
  | { type: 'openTodo'; todoId: string }
  | { type: 'export'; format: 'html' | 'pdf' };

/** Host → webview. */
export type ToStoryWebview =
  | { type: 'story'; story: Story; goals: { id: string; title: string }[] }
  | { type: 'empty'; message: string }
  | { type: 'busy'; message: string };
