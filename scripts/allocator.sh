#!/bin/sh
# Runs a command (`npm start`, `npm run worker`) under the memory allocator Engram is measured with.
#
# jemalloc when the system has it (Debian/Ubuntu: `apt-get install libjemalloc2`): it returns the pages an
# import frees within a second (`dirty_decay_ms`), from a background thread. On a 30k-item import the
# embedded server held 1,158 MB after the import against 1,473 MB under glibc's malloc, of which 193 MB
# against 630 MB outside every heap (bench/results/scale-2026-11-27-s14.md). Without it, glibc's malloc
# with fixed settings: two arenas, allocations over 128 KB mapped on their own, freed memory above 128 KB
# returned (1,700 -> 1,120 MB after a 30k import against glibc's adaptive defaults; scale-2026-11-26-s11.md).
#
# ENGRAM_ALLOCATOR=glibc keeps glibc's malloc; an LD_PRELOAD already set is left as it is.
if [ -z "${LD_PRELOAD:-}" ] && [ "${ENGRAM_ALLOCATOR:-}" != glibc ]; then
  for lib in /usr/lib/x86_64-linux-gnu/libjemalloc.so.2 /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 \
    /usr/lib64/libjemalloc.so.2 /usr/lib/libjemalloc.so.2 /usr/local/lib/libjemalloc.so.2; do
    if [ -f "$lib" ]; then
      export LD_PRELOAD="$lib"
      export MALLOC_CONF="${MALLOC_CONF:-background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0}"
      break
    fi
  done
fi
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-131072}"
exec "$@"
