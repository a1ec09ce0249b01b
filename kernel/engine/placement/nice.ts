/**
 * The nice increment a pool gives piscina (niceIncrement) for `nice`: on Linux a thread's nice value
 * is its own, so a worker lowers itself alone; elsewhere nice() lowers the whole process (the event
 * loop with it), and on Windows the value is read as a thread priority constant. So only on Linux.
 */
export const threadNice = (nice = 0): number => (process.platform === 'linux' ? nice : 0);
