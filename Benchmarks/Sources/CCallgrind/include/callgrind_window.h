#ifndef CALLGRIND_WINDOW_H
#define CALLGRIND_WINDOW_H

/// Whether this target was built with valgrind's client-request headers
/// (`valgrind/callgrind.h`); without them the functions below do nothing.
int coherence_callgrind_available(void);

/// Whether the program runs under valgrind (0 outside it, or when built
/// without valgrind's headers).
int coherence_running_on_valgrind(void);

/// Starts callgrind's instrumentation: what runs from here on, on every
/// thread, is counted (run the program with `--instr-atstart=no`).
void coherence_callgrind_start(void);

/// Stops callgrind's instrumentation: what runs from here on is not counted.
void coherence_callgrind_stop(void);

#endif
