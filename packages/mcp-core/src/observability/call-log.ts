import type { Logger } from '../logger.js';
import type { TelemetryObserver } from './events.js';

/** One log line per tool call: tool, outcome, duration (the request fields come from the context). */
export function toolCallLog(logger: Logger): TelemetryObserver {
  return {
    toolCall: (event) => ({
      end: ({ outcome, durationMs }) =>
        logger.info('tool call', {
          tool: event.tool,
          outcome,
          duration_ms: Math.round(durationMs * 10) / 10,
        }),
    }),
  };
}
