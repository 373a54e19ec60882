#ifndef ALLOCATED_BYTES_H
#define ALLOCATED_BYTES_H
#include <stddef.h>

/// Bytes the C allocator holds for the program (glibc's mallinfo2: in-use
/// arena bytes plus mmapped blocks); 0 where it is not available.
size_t coherence_allocated_bytes(void);

#endif
