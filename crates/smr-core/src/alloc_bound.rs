//! A global allocator that refuses any single allocation above `LIMIT` bytes (returning null,
//! which aborts the process): installed by the hostile-input tests so that an input making
//! smrlab size a table from what the address space allows, rather than what the trace needs,
//! fails the test at once instead of exhausting the machine.
//!
//! Not for smrlab's own binaries, which allocate with the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, refusing single allocations above `LIMIT` bytes.
pub struct Bounded<const LIMIT: usize>;

// SAFETY: every call is passed to the system allocator unchanged, or refused with null, which
// the `GlobalAlloc` contract allows for any allocation.
unsafe impl<const LIMIT: usize> GlobalAlloc for Bounded<LIMIT> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT {
            return std::ptr::null_mut();
        }
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.size() > LIMIT {
            return std::ptr::null_mut();
        }
        System.alloc_zeroed(layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > LIMIT {
            return std::ptr::null_mut();
        }
        System.realloc(ptr, layout, new_size)
    }
}
