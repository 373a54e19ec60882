#include "callgrind_window.h"

// valgrind's client requests are a few instructions that do nothing outside
// valgrind; the header comes with Debian's valgrind package.
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define COHERENCE_HAS_CALLGRIND 1
#endif
#endif

int coherence_callgrind_available(void) {
#ifdef COHERENCE_HAS_CALLGRIND
    return 1;
#else
    return 0;
#endif
}

int coherence_running_on_valgrind(void) {
#ifdef COHERENCE_HAS_CALLGRIND
    return RUNNING_ON_VALGRIND ? 1 : 0;
#else
    return 0;
#endif
}

void coherence_callgrind_start(void) {
#ifdef COHERENCE_HAS_CALLGRIND
    CALLGRIND_START_INSTRUMENTATION;
#endif
}

void coherence_callgrind_stop(void) {
#ifdef COHERENCE_HAS_CALLGRIND
    CALLGRIND_STOP_INSTRUMENTATION;
#endif
}
