/**
 * A prompt file in the format of the ai-project-guide's `prompt.ai-project.system.md`, written
 * for this project's sandbox and tests: `##### Name` sections, each with a fenced prompt and
 * `{parameter}` / `{{parameter}}` placeholders.
 */
export const EXAMPLE_PROMPT_FILE = `---
docType: template
purpose: reusable-llm-prompts
---
## Prompts
Prompts for working through a project slice by slice. The project's instruction picks one.

##### Context Initialization
\`\`\`markdown
You are joining project {project} as a senior engineer. Read the architecture notes and the slice
plan in \`project-documents/user/\` before changing code, and ask when something is unclear.
\`\`\`

##### Context Initialization (Monorepo)
\`\`\`markdown
You are joining the monorepo {project}. Work only inside the package for template {template}
unless the slice says otherwise, and run that package's checks before you finish.
\`\`\`

##### Tool Usage
\`\`\`markdown
Prefer the tools listed above to guessing: look things up, then act. Say which tool you used.
\`\`\`

##### Slice Design (Phase 4)
*Use this to design one slice before any tasks exist.*

\`\`\`markdown
We are designing slice {slice} for {project}. Write the design to
\`user/slices/{slice}.md\`: goals, interfaces, data shapes, risks, and what is out of scope.
Do not write code yet.
\`\`\`

##### Task Breakdown (Phase 5)
\`\`\`markdown
Break the design of slice {slice} into small, testable tasks in \`user/tasks/{{taskFile}}\`.
Each task names the files it touches and how it is verified.
\`\`\`

##### Implementation (Phase 6)
\`\`\`markdown
We are implementing slice {slice} of {project} from the tasks in {{taskFile}} (phase: {{developmentPhase}}).
Work through the tasks in order, check each one off when its tests pass, and commit after each task.
{{#if isMonorepo}}Run the checks of the package you changed.{{else}}Run the full test suite before each commit.{{/if}}
\`\`\`

##### Code Review
\`\`\`markdown
Review the changes of slice {slice} in {project}: correctness first, then tests, then naming and
structure. List findings by severity, each with the file and a concrete fix.
\`\`\`

##### Session State Summary
\`\`\`markdown
Summarize this session for {project}: what was done, what is in progress, what is next, and any
decisions made. Keep it under 200 words; it becomes the recent events of the next context.
\`\`\`

##### Custom Instruction
\`\`\`markdown
Follow the additional instructions below for {project}.
\`\`\`
`;

/** Statements in the app's `default-statements.md` format, with one of the defaults changed. */
export const EXAMPLE_STATEMENTS_FILE = `---
version: "1.0.0"
lastUpdated: "2026-11-01"
---

## Continue Project Statement
<!-- key: continue-project-statement, editable: true -->

Picking up work on {{projectName}}. Project information, environment, instructions and notes follow:

## Current Events Header
<!-- key: current-events-header, editable: true -->

### Current Events
`;
