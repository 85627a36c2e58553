import { activityFamily } from './activity.js';
import { adminFamily } from './admin.js';
import { cardsFamily } from './cards.js';
import { checkinsFamily } from './checkins.js';
import { clientsFamily } from './clients.js';
import { editsFamily } from './edits.js';
import { gaugesFamily } from './gauges.js';
import { peopleFamily } from './people.js';
import { progressFamily } from './progress.js';
import { projectsFamily } from './projects.js';
import { reportsFamily } from './reports.js';
import { socialFamily } from './social.js';
import { timesheetsFamily } from './timesheets.js';
import { todosFamily } from './todos.js';
import type { Family } from './types.js';

/** The API families served beyond the core routes of `fake-basecamp.ts`, each in its own file. */
export const FAMILIES: readonly Family[] = [
  cardsFamily,
  checkinsFamily,
  todosFamily,
  activityFamily,
  reportsFamily,
  editsFamily,
  projectsFamily,
  clientsFamily,
  socialFamily,
  adminFamily,
  peopleFamily,
  gaugesFamily,
  timesheetsFamily,
  progressFamily,
];

export { TEMPLATE_ID } from './admin.js';
export { CARDS } from './cards.js';
export { CHECKINS } from './checkins.js';
export { CLIENTS } from './clients.js';
export type { Family, FamilyContext } from './types.js';
