#pragma once
#include <stdint.h>
/// Number of malloc-family calls made by the process since it started.
/// Linked only into the benchmark executable, where it interposes glibc's malloc.
uint64_t whereabouts_malloc_count(void);
