// Marks for callgrind: zero the counters before a measured loop and dump them,
// named, after it. Outside valgrind both are a few no-op instructions.
#ifndef FORCESTAGE_CALLGRIND_MARKS_H
#define FORCESTAGE_CALLGRIND_MARKS_H

/// Zeroes callgrind's counters (CALLGRIND_ZERO_STATS).
void fs_callgrind_zero(void);
/// Writes callgrind's counters since the last zero to a dump named `name` (CALLGRIND_DUMP_STATS_AT).
void fs_callgrind_dump(const char *name);
/// 1 when running under valgrind.
int fs_running_on_valgrind(void);

#endif
