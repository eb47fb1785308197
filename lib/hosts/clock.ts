// The clock of the Node hosts: milliseconds since the Unix epoch that never go backwards within
// a process (the wall time when the process started, plus its monotonic clock). Deadlines need
// the monotonic part; what a peer is told (a task's createdAt and lastUpdatedAt) needs the epoch.

import { performance } from "node:perf_hooks";

/** Now, in ms since the epoch; monotonic (a change of the system's wall clock does not move it). */
export const epochClock = (): number => performance.timeOrigin + performance.now();
