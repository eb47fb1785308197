import type { ProgressInfo } from "../peer/shared/call-options.js";
// What the command shows on stderr while a request is pending: the elapsed time and the
// server's latest progress notification.
//
// On a terminal one status line is redrawn in place (a timer ticks the clock) and erased
// when the request settles, so it never mixes with the report on stdout. Elsewhere (a pipe,
// a CI log) nothing is animated: one plain line per progress notification, so logs stay
// readable and a quiet call prints nothing.
//
// Clock, timers and output are injected, so the display is tested without real time.

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

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** "[3/10] copying" or "[3] copying": progress, its total when known, its message when sent. */
export function describeProgress(info: ProgressInfo): string {
  const count = info.total !== undefined ? `${info.progress}/${info.total}` : `${info.progress}`;
  return `[${count}]${info.message !== undefined && info.message !== "" ? ` ${info.message}` : ""}`;
}

/** Terminal text must not move the cursor: control characters in a server's message are shown as "?". */
const printable = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?");

export function pendingDisplay(host: DisplayHost): PendingDisplay {
  return (label) => {
    const started = host.now();
    let last: ProgressInfo | undefined;
    let ended = false;
    const status = (): string =>
      printable(`... ${label} ${seconds(host.now() - started)}${last !== undefined ? ` ${describeProgress(last)}` : ""}`);
    if (!host.isTTY) {
      return {
        progress(info) {
          if (ended) return;
          last = info;
          host.write(`${status()}\n`);
        },
        end() {
          ended = true;
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
