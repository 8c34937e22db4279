/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/*
 * A regular user's crash that kept no core (rejected by a rule, by builtin:rlimit-zero, as a
 * repeat, or for overload) is told in that user's own journal, briefly (record_build_user_note()),
 * so that their `dumpctl list` says what became of it and why.
 *
 * Bounded, so that a crash loop does not flood the user's journal: of a signature's repeats only
 * the first past RateLimitBurst= in its interval gets a note (the crashes within the burst were
 * kept, with their full copy); and each user gets at most USER_NOTES_BURST notes per
 * USER_NOTES_INTERVAL_USEC whatever the reason (a rejected crash of the loop has no signature).
 * The counts live in memory, for at most USER_NOTES_USERS users (the least recently noted is
 * forgotten first). A note not made is counted (coredumpd_user_notes_withheld_total).
 *
 * Off the crash's path: the note is filed by `coredumpd-parser --record` running as the user, a
 * child the event loop (where rejections are answered) must not wait for. It is handed to one
 * thread of its own, through a queue of at most USER_NOTES_QUEUE notes, USER_NOTES_QUEUE_PER_TENANT
 * of them one tenant's (a container's many uids share one share; a note past either is withheld);
 * the thread starts with the first note.
 */

#include "crash/crash.h"
#include "crash/record.h"
#include "store/metrics.h"

#define USER_NOTES_BURST 5
#define USER_NOTES_INTERVAL_USEC (UINT64_C(600) * 1000000)
#define USER_NOTES_USERS 64
#define USER_NOTES_QUEUE 16
#define USER_NOTES_QUEUE_PER_TENANT 4

/* Notes the crash if record_user_note_wanted() and the bounds allow: into sink (tests) when not
 * NULL, else through the notes' thread; counted in m (may be NULL). */
void user_note_crash(const struct crash *c, record_sink_fn sink, void *userdata, struct metrics *m);
/* Ends the notes' thread: what is queued is filed within timeout_usec, else left. */
void user_notes_stop(uint64_t timeout_usec);
/* Forgets the per-user counts (tests). */
void user_notes_reset(void);
