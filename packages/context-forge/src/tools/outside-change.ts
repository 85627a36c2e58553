import { type ToolCallResult, toolSuccess } from '@x/mcp-core';
import type { OutsideChange } from '../store/project-store.js';

/**
 * What the model is told when a project it changed through us was rewritten by another program,
 * usually the desktop app saving the form of the open project over our change.
 */
export function describeOutsideChange(change: OutsideChange, { beforeThisWrite = false } = {}): string {
  const what =
    `Project '${change.name}' (${change.projectId}) was rewritten by another program after this server ` +
    `last wrote it (our write: updatedAt ${change.ourUpdatedAt}; now: ${change.updatedAt}).`;
  if (change.undone.length === 0) return `Note: ${what} The values we wrote are still stored.`;
  return (
    `Warning: ${what} These values we wrote are no longer stored: ${change.undone.join(', ')}` +
    `${beforeThisWrite ? ' (this call wrote only the fields it was given)' : ''}. ` +
    'The Context Forge desktop app does this to the project open in it: it saves its whole form 500 ms ' +
    'after any edit there and again when it quits, over changes made meanwhile. Tell the user, and write ' +
    'again once the app has quit or shows another project.'
  );
}

/**
 * `data` as the tool result, followed by one text block per outside change (none: `data` as is).
 * Take the changes only once the call has succeeded, so a failed call does not swallow them.
 */
export function withOutsideChanges<T>(
  data: T,
  changes: readonly (OutsideChange | undefined)[],
  options: { beforeThisWrite?: boolean } = {},
): T | ToolCallResult {
  const notices = changes
    .filter((change): change is OutsideChange => change !== undefined)
    .map((change) => describeOutsideChange(change, options));
  if (notices.length === 0) return data;
  const result = toolSuccess(data);
  result.content.push(...notices.map((text) => ({ type: 'text' as const, text })));
  return result;
}
