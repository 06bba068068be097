//! The shipped module's allocator: power-of-two size classes, a free list each.
//!
//! Every block is naturally aligned (a block of 2^k bytes starts at a multiple of 2^k), so a
//! class serves any alignment up to its size. A freed block goes on its class's list and is
//! the next one handed out there; new blocks are carved from the end of the memory, which
//! grows by whole pages. The padding that natural alignment skips is cut into the largest
//! aligned blocks that fit and put on their lists, so no byte is lost. Memory is never given
//! back (wasm cannot shrink): the footprint is at most the peak of each class, which for a
//! service whose tables grow and shrink with its clients stays flat over hours and millions
//! of requests. A fraction of dlmalloc's code, which is what this module is for.

use core::alloc::Layout;

/// A wasm page.
pub(crate) const PAGE: usize = 1 << 16;
/// The smallest block holds a free list's link.
const MIN_SHIFT: u32 = usize::BITS.trailing_zeros() - 3;
const CLASSES: usize = (usize::BITS - MIN_SHIFT) as usize;

/// Where new memory comes from.
pub(crate) trait Pages {
    /// Adds `pages` pages; returns where they start (the memory's old end), or `None`.
    fn grow(&mut self, pages: usize) -> Option<usize>;
}

pub(crate) struct SizeClasses<P> {
    /// Each class's first free block (0: none); a free block starts with the next one's address.
    free: [usize; CLASSES],
    /// The unused rest of the memory: `next..end`.
    next: usize,
    end: usize,
    pages: P,
}

/// A layout's class: the index of its block size 2^(index + MIN_SHIFT).
fn class(layout: Layout) -> Option<usize> {
    let size = layout
        .size()
        .max(layout.align())
        .checked_next_power_of_two()?;
    Some(size.trailing_zeros().saturating_sub(MIN_SHIFT) as usize)
}

impl<P: Pages> SizeClasses<P> {
    pub(crate) const fn new(pages: P) -> Self {
        SizeClasses {
            free: [0; CLASSES],
            next: 0,
            end: 0,
            pages,
        }
    }

    /// A block for `layout`, or null when the memory cannot grow.
    ///
    /// # Safety
    /// The memory that `pages` hands out must be this allocator's alone.
    pub(crate) unsafe fn alloc(&mut self, layout: Layout) -> *mut u8 {
        let Some(class) = class(layout) else {
            return core::ptr::null_mut();
        };
        let head = self.free[class];
        if head != 0 {
            // SAFETY: a free block of this class holds the address of the next one.
            self.free[class] = unsafe { *(head as *const usize) };
            return head as *mut u8;
        }
        unsafe { self.carve(1 << (class as u32 + MIN_SHIFT)) }
    }

    /// # Safety
    /// `block` came from [`Self::alloc`] with `layout` and is not used any more.
    pub(crate) unsafe fn dealloc(&mut self, block: *mut u8, layout: Layout) {
        if let Some(class) = class(layout) {
            unsafe { self.push(class, block as usize) };
        }
    }

    /// Whether `layout` and `new` get blocks of the same size (a reallocation is then a no-op).
    pub(crate) fn same_class(layout: Layout, new: Layout) -> bool {
        class(layout) == class(new)
    }

    unsafe fn push(&mut self, class: usize, block: usize) {
        // SAFETY: the block is at least a link long, aligned to it, and free.
        unsafe { *(block as *mut usize) = self.free[class] };
        self.free[class] = block;
    }

    /// Puts `start..stop` (both multiples of the smallest block) on the lists, as the largest
    /// naturally aligned blocks that fit.
    unsafe fn release(&mut self, mut start: usize, stop: usize) {
        while start < stop {
            let size = (1usize << start.trailing_zeros()).min(1 << (stop - start).ilog2());
            unsafe { self.push((size.trailing_zeros() - MIN_SHIFT) as usize, start) };
            start += size;
        }
    }

    /// A new block of `size` (a power of two) from the end of the memory.
    unsafe fn carve(&mut self, size: usize) -> *mut u8 {
        loop {
            let Some(start) = self.next.checked_next_multiple_of(size) else {
                return core::ptr::null_mut();
            };
            let Some(stop) = start.checked_add(size) else {
                return core::ptr::null_mut();
            };
            if stop <= self.end {
                unsafe { self.release(self.next, start) };
                self.next = stop;
                return start as *mut u8;
            }
            let pages = (stop - self.end).div_ceil(PAGE);
            let Some(old) = self.pages.grow(pages) else {
                return core::ptr::null_mut();
            };
            if old != self.end {
                // Not contiguous (the first growth, or memory grown by someone else): the
                // rest of the old end is kept as free blocks, and carving starts over there.
                unsafe { self.release(self.next, self.end) };
                self.next = old;
            }
            self.end = old + pages * PAGE;
        }
    }
}

#[cfg(all(target_arch = "wasm32", feature = "no-std-module"))]
pub(crate) use wasm::Global;

#[cfg(all(target_arch = "wasm32", feature = "no-std-module"))]
mod wasm {
    use super::{Pages, SizeClasses, PAGE};
    use core::alloc::{GlobalAlloc, Layout};
    use core::cell::UnsafeCell;

    pub(crate) struct Memory;

    impl Pages for Memory {
        fn grow(&mut self, pages: usize) -> Option<usize> {
            let old = core::arch::wasm32::memory_grow(0, pages);
            (old != usize::MAX).then(|| old * PAGE)
        }
    }

    /// The global allocator of the `no_std` module.
    pub(crate) struct Global(UnsafeCell<SizeClasses<Memory>>);

    impl Global {
        pub(crate) const fn new() -> Self {
            Global(UnsafeCell::new(SizeClasses::new(Memory)))
        }
    }

    // SAFETY: wasm32-unknown-unknown without the atomics feature runs on a single thread, and
    // the allocator calls nothing that could re-enter it.
    unsafe impl Sync for Global {}

    unsafe impl GlobalAlloc for Global {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            unsafe { (*self.0.get()).alloc(layout) }
        }

        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            unsafe { (*self.0.get()).dealloc(block, layout) }
        }

        unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: the caller guarantees that `new_size` with this alignment is a layout.
            let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
            if SizeClasses::<Memory>::same_class(layout, new) {
                return block;
            }
            let moved = unsafe { self.alloc(new) };
            if !moved.is_null() {
                unsafe {
                    core::ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                    self.dealloc(block, layout);
                }
            }
            moved
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;

    /// A memory of `cap` bytes inside a buffer; `gap` pages are skipped before the next
    /// growth (as if someone else had grown the memory).
    struct Fake {
        buffer: Vec<u64>,
        used: usize,
        gap: usize,
    }

    impl Fake {
        fn new(cap: usize) -> Self {
            Fake {
                buffer: vec![0; cap / 8],
                used: PAGE / 2, // a start that is not page aligned
                gap: 0,
            }
        }
        fn base(&self) -> usize {
            self.buffer.as_ptr() as usize
        }
    }

    impl Pages for Fake {
        fn grow(&mut self, pages: usize) -> Option<usize> {
            let start = self.used + core::mem::take(&mut self.gap) * PAGE;
            let stop = start + pages * PAGE;
            if stop > self.buffer.len() * 8 {
                return None;
            }
            self.used = stop;
            Some(self.base() + start)
        }
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    struct Live {
        block: *mut u8,
        layout: Layout,
        tag: u8,
    }

    fn fill(live: &Live) {
        unsafe { core::ptr::write_bytes(live.block, live.tag, live.layout.size()) };
    }

    fn check(live: &Live) {
        let bytes = unsafe { core::slice::from_raw_parts(live.block, live.layout.size()) };
        assert!(
            bytes.iter().all(|&b| b == live.tag),
            "a block was overwritten"
        );
    }

    fn random_layout(rng: &mut Rng) -> Layout {
        let size = match rng.below(10) {
            0..=5 => rng.below(64) as usize,
            6..=8 => rng.below(4096) as usize,
            _ => rng.below(300_000) as usize,
        };
        let shifts = if rng.below(50) == 0 { 14 } else { 5 };
        let align = 1usize << rng.below(shifts);
        Layout::from_size_align(size, align).unwrap()
    }

    /// Every free block, as (address, size).
    fn free_blocks(heap: &SizeClasses<Fake>) -> Vec<(usize, usize)> {
        let mut blocks = Vec::new();
        for (class, &head) in heap.free.iter().enumerate() {
            let mut block = head;
            while block != 0 {
                blocks.push((block, 1 << (class as u32 + MIN_SHIFT)));
                block = unsafe { *(block as *const usize) };
            }
        }
        blocks
    }

    /// Random allocations and frees: blocks are aligned and never overlap (each keeps its
    /// fill until freed); once all are freed the free blocks and the uncarved rest tile the
    /// memory exactly; an identical second round is served from the first one's blocks.
    #[test]
    fn blocks_are_aligned_disjoint_and_reused() {
        let mut heap = SizeClasses::new(Fake::new(256 << 20));
        let round = |heap: &mut SizeClasses<Fake>| {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
            let mut live: Vec<Live> = Vec::new();
            for step in 0..60_000u32 {
                if live.len() < 2 || (live.len() < 1_000 && rng.below(5) < 3) {
                    let layout = random_layout(&mut rng);
                    let block = unsafe { heap.alloc(layout) };
                    assert!(!block.is_null());
                    assert_eq!(block as usize % layout.align(), 0, "misaligned");
                    let entry = Live {
                        block,
                        layout,
                        tag: step as u8,
                    };
                    fill(&entry);
                    live.push(entry);
                } else {
                    let entry = live.swap_remove(rng.below(live.len() as u64) as usize);
                    check(&entry);
                    unsafe { heap.dealloc(entry.block, entry.layout) };
                }
            }
            for entry in live.drain(..) {
                check(&entry);
                unsafe { heap.dealloc(entry.block, entry.layout) };
            }
        };
        round(&mut heap);
        let grown = heap.pages.used;
        let mut blocks = free_blocks(&heap);
        blocks.sort_unstable();
        let mut at = heap.pages.base() + PAGE / 2;
        for (block, size) in blocks {
            assert_eq!(block, at, "free blocks overlap or leave a hole");
            assert_eq!(block % size, 0, "a free block is not naturally aligned");
            at += size;
        }
        assert_eq!(at, heap.next);
        assert_eq!(heap.end, heap.pages.base() + grown);
        round(&mut heap);
        assert_eq!(heap.pages.used, grown, "the second round grew the memory");
    }

    /// Many rounds of a steady workload (tables growing and shrinking) keep the footprint
    /// they reached early.
    #[test]
    fn steady_churn_does_not_grow() {
        let mut heap = SizeClasses::new(Fake::new(64 << 20));
        let mut rng = Rng(7);
        let mut live: Vec<(*mut u8, Layout)> = Vec::new();
        let mut early = 0;
        for round in 0..500 {
            for _ in 0..2_000 {
                let layout = Layout::from_size_align(1 + rng.below(200) as usize, 8).unwrap();
                live.push((unsafe { heap.alloc(layout) }, layout));
            }
            while live.len() > 1_000 {
                let (block, layout) = live.swap_remove(rng.below(live.len() as u64) as usize);
                unsafe { heap.dealloc(block, layout) };
            }
            if round == 10 {
                early = heap.pages.used;
            }
        }
        assert!(
            heap.pages.used <= early + PAGE,
            "the footprint kept growing"
        );
    }

    /// Memory grown by someone else in between: carving continues in the new pages, and the
    /// rest of the old ones goes on the free lists.
    #[test]
    fn survives_foreign_growth() {
        let mut heap = SizeClasses::new(Fake::new(8 << 20));
        let first = unsafe { heap.alloc(Layout::new::<[u64; 3]>()) } as usize;
        let first_end = heap.end;
        heap.pages.gap = 3;
        let far = unsafe { heap.alloc(Layout::from_size_align(PAGE, 8).unwrap()) } as usize;
        assert!(far >= first_end + 3 * PAGE);
        let rest: usize = free_blocks(&heap)
            .iter()
            .filter(|&&(block, _)| block > first && block < first_end)
            .map(|&(_, size)| size)
            .sum();
        assert_eq!(rest, first_end - (first + 32));
    }

    /// What no memory can serve is refused with null.
    #[test]
    fn exhaustion_is_null() {
        let mut heap = SizeClasses::new(Fake::new(1 << 20));
        let huge = Layout::from_size_align(4 << 20, 8).unwrap();
        assert!(unsafe { heap.alloc(huge) }.is_null());
        let max = Layout::from_size_align(isize::MAX as usize, 1).unwrap();
        assert!(unsafe { heap.alloc(max) }.is_null());
        assert!(!unsafe { heap.alloc(Layout::new::<u64>()) }.is_null());
    }

    /// Same-class reallocations keep the block.
    #[test]
    fn classes() {
        let l = |size, align| Layout::from_size_align(size, align).unwrap();
        assert_eq!(class(l(0, 1)), Some(0));
        assert_eq!(class(l(8, 1)), Some(0));
        assert_eq!(class(l(9, 1)), Some(1));
        assert_eq!(class(l(1, 64)), class(l(64, 1)));
        assert!(SizeClasses::<Fake>::same_class(l(33, 8), l(64, 8)));
        assert!(!SizeClasses::<Fake>::same_class(l(64, 8), l(65, 8)));
    }
}
