#ifndef BLAZEKIT_CPREFETCH_H
#define BLAZEKIT_CPREFETCH_H

/// A read-prefetch hint for the cache line holding `address` (all cache levels). It never faults, reads
/// nothing into a register and retires at once, unlike a load used as a "touch", whose miss holds the
/// core's reorder buffer until the line arrives. Swift has no spelling of its own for it.
static inline __attribute__((always_inline)) void blaze_prefetch(const void *address) {
    __builtin_prefetch(address, 0, 3);
}

#endif
