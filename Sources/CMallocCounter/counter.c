// Counts allocations for `make bench` by interposing glibc's malloc family.
// Only the benchmark links this target; services and tests never do.
#include <stddef.h>
#include <stdint.h>
#include "CMallocCounter.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static uint64_t count;

uint64_t whereabouts_malloc_count(void) { return __atomic_load_n(&count, __ATOMIC_RELAXED); }

void *malloc(size_t n) { __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
int posix_memalign(void **out, size_t align, size_t n) {
    __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    void *p = __libc_memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
void *aligned_alloc(size_t align, size_t n) { __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED); return __libc_memalign(align, n); }
