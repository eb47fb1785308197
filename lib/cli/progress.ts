// What the command shows on stderr while a request is pending: the elapsed time and the
// server's latest progress notification.
//
// On a terminal one status line is redrawn in place (a timer ticks the clock) and erased
// when the request settles, so it never mixes with the report on stdout. Elsewhere (a pipe,
// a CI log) nothing is animated: one plain line per progress notification, and while nothing
// else was printed for HEARTBEAT_MS (5 s), one line saying the request is still waiting, so a
// server that never answers is seen waiting, not silent; a call answered within 5 s prints nothing.
//
// The label (it may name a server's tool) and the server's progress message are printed as
// untrusted text (CLI-01): escaped and cut, so only this display's own "\r\x1b[K" moves the cursor.
//
// Clock, timers and output are injected, so the display is tested without real time.

import type { ProgressInfo } from "../peer/shared/call-options.js";
import { untrustedText } from "../codec/terminal-text.js";

export interface DisplayHost {
  write(text: string): void;
  isTTY: boolean;
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export interface Pending {
  progress(info: ProgressInfo): void;
  end(): void;
}

/** Opens the display of one pending request. */
export type PendingDisplay = (label: string) => Pending;

const TICK_MS = 200;
/** Off a terminal: the longest a pending request goes without a line. */
export const HEARTBEAT_MS = 5000;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** "[3/10] copying" or "[3] copying": progress, its total when known, its message when sent. */
export function describeProgress(info: ProgressInfo): string {
  const count = info.total !== undefined ? `${info.progress}/${info.total}` : `${info.progress}`;
  return `[${count}]${info.message !== undefined && info.message !== "" ? ` ${untrustedText(info.message)}` : ""}`;
}

export function pendingDisplay(host: DisplayHost): PendingDisplay {
  return (label) => {
    const started = host.now();
    let last: ProgressInfo | undefined;
    let ended = false;
    const shown = untrustedText(label, Infinity);
    const status = (): string => `... ${shown} ${seconds(host.now() - started)}${last !== undefined ? ` ${describeProgress(last)}` : ""}`;
    if (!host.isTTY) {
      let lastLine = started;
      const line = (text: string): void => {
        lastLine = host.now();
        host.write(`${text}\n`);
      };
      const stop = host.every(HEARTBEAT_MS, () => {
        // Half a period of tolerance: a progress line just before the tick stands for it.
        if (!ended && host.now() - lastLine >= HEARTBEAT_MS / 2) line(`${status()}: still waiting`);
      });
      return {
        progress(info) {
          if (ended) return;
          last = info;
          line(status());
        },
        end() {
          if (ended) return;
          ended = true;
          stop();
        },
      };
    }
    const draw = (): void => host.write(`\r\u001b[K${status()}`);
    const stop = host.every(TICK_MS, draw);
    draw();
    return {
      progress(info) {
        if (ended) return;
        last = info;
        draw();
      },
      end() {
        if (ended) return;
        ended = true;
        stop();
        host.write("\r\u001b[K");
      },
    };
  };
}
