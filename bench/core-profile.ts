// A profiling driver, not a bench: the core pair of bench/engine.bench.ts doing one case one
// at a time (or `window` in flight) for a few CPU seconds, for `node --cpu-prof`,
// `--trace-deopt` or similar. Prints round trips per CPU second and nothing else.
//
//   node --cpu-prof dist/bench/core-profile.js ping|tools/call [seconds] [window]

import { PING, TOOLS_CALL, connectedPair, inFlight } from "./engine.bench.js";

const c = process.argv[2] === "tools/call" ? TOOLS_CALL : PING;
const seconds = Number(process.argv[3] ?? "5");
const window = Number(process.argv[4] ?? "1");
const pair = connectedPair();
const start = process.cpuUsage();
let n = 0;
for (;;) {
  n += inFlight(pair, c, 1000 * window, window);
  const used = process.cpuUsage(start);
  const s = (used.user + used.system) / 1e6;
  if (s >= seconds) {
    process.stdout.write(`${c.label} window ${window}: ${Math.round(n / s)} round trips per CPU second\n`);
    break;
  }
}
