#!/bin/sh
# Runs a command (`npm start`, `npm run worker`) under the memory allocator and the V8 young generation
# Engram is measured with.
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
# A larger young generation for V8's event loop (`--max-semi-space-size`, MB; the services' worker threads
# get their own, ENGRAM_WORKER_SEMI_SPACE_MB: `workersAtYoungGeneration` in packages/runtime). Under 16
# concurrent searches at 100k items, V8's own 16 MB let most of each search's objects outlive two scavenges
# and reach the old generation, whose full collections (marking a ~300 MB heap) then came every few seconds
# (bench/results/scale-2026-11-30-s35-account.md). 32 MB: since searches allocate less, on the kept 100k
# index under 16 clients, alternated with 64 MB, it served 103.8-134.3 searches/s against 90.9-116.2 (five
# pairs), and against V8's own 106.5-128.6 against 94.9-104.3 (three pairs), the resident set after the load
# 60-80 MB below 64 MB's and level with V8's own's (bench/results/scale-2026-12-01-s42-account.md).
# ENGRAM_SEMI_SPACE_MB=0 leaves it to V8; a --max-semi-space-size already in NODE_OPTIONS comes after this
# one and wins.
semi="${ENGRAM_SEMI_SPACE_MB:-32}"
case "$semi" in
  '' | *[!0-9]*) echo "ENGRAM_SEMI_SPACE_MB must be a whole number of MB (0 = V8's default), got '$semi'" >&2; exit 64 ;;
esac
if [ "$semi" != 0 ]; then
  export NODE_OPTIONS="--max-semi-space-size=$semi${NODE_OPTIONS:+ $NODE_OPTIONS}"
fi
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-131072}"
exec "$@"
