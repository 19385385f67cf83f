#pragma once
// Freed heap pages handed back to the system. glibc keeps them in the arena of the thread
// that freed them, and the set-up's many per-cell vectors (CV trees, points, layout
// indices) leave holes that the large arrays after them, each mapped on its own, never
// reuse: busyring's host set-up kept 18 to 24 bytes per CV of them resident (bench/host_setup).
#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace arbolito {

inline void return_free_heap() {
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

}  // namespace arbolito
