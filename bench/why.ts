/**
 * What profiling found behind a target, keyed by the target's text: shown in results.md beside the
 * verdict the run measured (the `missed` text only when the run missed it).
 */
export const WHY: Record<string, { met?: string; missed?: string }> = {};
