/**
 * Typed arrays kept for reuse across searches (a few in flight at once): on a VM where a page fault costs
 * 13 us, a fresh array of tens of kilobytes a search is faults on every page it writes. `take` hands out a
 * kept array of at least `length` (or makes one, with `make`); `give` keeps it again, the `kept` largest.
 * The contents are as the last user left them.
 */
export function arrayPool<T extends { length: number }>(make: (length: number) => T, kept = 8): { take(length: number): T; give(array: T): void } {
  const free: T[] = [];
  return {
    take(length) {
      const at = free.findIndex((a) => a.length >= length);
      return at >= 0 ? free.splice(at, 1)[0]! : make(length);
    },
    give(array) {
      free.push(array);
      if (free.length > kept) free.sort((a, b) => b.length - a.length).pop();
    },
  };
}
