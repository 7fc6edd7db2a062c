//! A hint to the CPU to start loading a value's cache line now, for per-access paths that know
//! ahead which memory they will read: a cache's next victim (at hundreds of thousands of cached
//! blocks its entries are not in the CPU caches, and the load would otherwise stall the next
//! eviction), the trace records a kilobyte ahead of the one being decoded. A hint only: it
//! changes no value and no result, and it is a no-op off x86-64.

/// Starts loading the cache line holding `value`.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 CPU has; a prefetch reads nothing
    // into the program and cannot fault, and the pointer comes from a live reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
