// The Node hosts' one timer (lib/hosts/timer-slot.ts) on fake timers: set for real only when the
// wanted time moves earlier, re-set when it fires for a deadline that went away, silent when
// nothing is wanted, and unref'd while nothing is.

import { test } from "node:test";
import assert from "node:assert/strict";
import { TimerSlot, type TimerFunctions, type TimerHandle } from "../../lib/hosts/timer-slot.js";

class FakeTimers implements TimerFunctions {
  now = 0;
  readonly log: string[] = [];
  private pending: { at: number; callback: () => void; handle: TimerHandle & { refed: boolean } } | undefined;

  set(callback: () => void, ms: number): TimerHandle {
    const handle = { refed: true, ref: () => (handle.refed = true), unref: () => (handle.refed = false) };
    this.pending = { at: this.now + ms, callback, handle };
    this.log.push(`set ${this.now + ms}`);
    return handle;
  }

  clear(): void {
    this.log.push("clear");
    this.pending = undefined;
  }

  get refed(): boolean | undefined {
    return this.pending?.handle.refed;
  }

  /** Moves time to `t`, firing the pending timer if it is due. */
  advanceTo(t: number): void {
    this.now = t;
    const due = this.pending;
    if (due !== undefined && due.at <= t) {
      this.pending = undefined;
      due.callback();
    }
  }
}

test("TimerSlot: one setTimeout for a run of later deadlines; an earlier one re-sets; a fire before the wanted time waits on", () => {
  const timers = new FakeTimers();
  const fired: number[] = [];
  const slot = new TimerSlot(() => timers.now, () => fired.push(timers.now), timers);
  slot.arm(1000);
  slot.arm(undefined); // the request was answered
  slot.arm(1010); // the next one, later
  slot.arm(1020);
  assert.deepEqual(timers.log, ["set 1000"], "later deadlines keep the running timer");
  slot.arm(500);
  assert.deepEqual(timers.log, ["set 1000", "clear", "set 500"], "an earlier deadline re-sets it");
  slot.arm(1020);
  timers.advanceTo(500);
  assert.deepEqual(fired, [], "fired for a deadline that went away: no onTimer");
  assert.deepEqual(timers.log.at(-1), "set 1020", "set again for the wanted time");
  timers.advanceTo(1020);
  assert.deepEqual(fired, [1020]);
});

test("TimerSlot: nothing wanted: the running timer is unref'd and its fire does nothing; wanted again: ref'd", () => {
  const timers = new FakeTimers();
  const fired: number[] = [];
  const slot = new TimerSlot(() => timers.now, () => fired.push(timers.now), timers);
  slot.arm(100);
  slot.arm(undefined);
  assert.equal(timers.refed, false, "keeps no process alive");
  slot.arm(200);
  assert.equal(timers.refed, true);
  slot.arm(undefined);
  timers.advanceTo(100);
  assert.deepEqual(fired, []);
  assert.equal(timers.log.length, 1, "no timer set again when nothing is wanted");
  slot.arm(150);
  assert.deepEqual(timers.log, ["set 100", "set 150"]);
  timers.advanceTo(150);
  assert.deepEqual(fired, [150]);
});
