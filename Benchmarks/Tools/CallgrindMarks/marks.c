#include "CallgrindMarks.h"
#include <valgrind/callgrind.h>

void fs_callgrind_zero(void) { CALLGRIND_ZERO_STATS; }
void fs_callgrind_dump(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
int fs_running_on_valgrind(void) { return RUNNING_ON_VALGRIND ? 1 : 0; }
