//! A hash index from keys to `u32` handles, for the core's two lookups by key — a name's
//! resource, a request id's entry — with the keys kept by their owners (the resource slots,
//! the entry slab): open addressing, linear probing, at most half full, deletion by backward
//! shift (no tombstones), each bucket holding its key's hash beside the handle, so that a
//! probe compares keys only on equal hashes and growing never rehashes a key. One
//! implementation for both lookups keeps a general-purpose map's code out of the module.

use crate::prelude::*;

/// A bucket: the key's hash and its handle + 1 (0: empty).
#[derive(Clone, Copy, Default)]
struct Bucket {
    hash: u32,
    handle: u32,
}

#[derive(Default)]
pub(crate) struct Index {
    /// A power of two in size (or empty).
    buckets: Vec<Bucket>,
    len: usize,
}

impl core::fmt::Debug for Index {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Index({})", self.len)
    }
}

impl Index {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn mask(&self) -> usize {
        self.buckets.len().wrapping_sub(1)
    }

    /// The handle whose key has `hash` and satisfies `is_key`.
    pub(crate) fn find(&self, hash: u32, is_key: impl Fn(u32) -> bool) -> Option<u32> {
        let mask = self.mask();
        let mut at = hash as usize & mask;
        loop {
            let bucket = *self.buckets.get(at)?;
            if bucket.handle == 0 {
                return None;
            }
            if bucket.hash == hash && is_key(bucket.handle - 1) {
                return Some(bucket.handle - 1);
            }
            at = (at + 1) & mask;
        }
    }

    /// Adds `handle` under `hash` (its key is not in the index).
    pub(crate) fn insert(&mut self, hash: u32, handle: u32) {
        if 2 * (self.len + 1) > self.buckets.len() {
            self.grow();
        }
        self.place(Bucket {
            hash,
            handle: handle + 1,
        });
        self.len += 1;
    }

    fn place(&mut self, bucket: Bucket) {
        let mask = self.mask();
        let mut at = bucket.hash as usize & mask;
        while self.buckets[at].handle != 0 {
            at = (at + 1) & mask;
        }
        self.buckets[at] = bucket;
    }

    fn grow(&mut self) {
        let size = (2 * self.buckets.len()).max(8);
        let old = core::mem::replace(&mut self.buckets, alloc::vec![Bucket::default(); size]);
        for bucket in old {
            if bucket.handle != 0 {
                self.place(bucket);
            }
        }
    }

    /// Removes `handle`, which is in the index under `hash`.
    pub(crate) fn remove(&mut self, hash: u32, handle: u32) {
        let mask = self.mask();
        let mut hole = hash as usize & mask;
        while self.buckets[hole].handle != handle + 1 {
            hole = (hole + 1) & mask;
        }
        self.len -= 1;
        // Backward shift: each later bucket of the run whose home is not between the hole
        // and itself moves into the hole, so that every key stays reachable from its home.
        let mut at = hole;
        loop {
            at = (at + 1) & mask;
            let bucket = self.buckets[at];
            if bucket.handle == 0 {
                break;
            }
            let home = bucket.hash as usize & mask;
            if (at.wrapping_sub(home) & mask) >= (at.wrapping_sub(hole) & mask) {
                self.buckets[hole] = bucket;
                hole = at;
            }
        }
        self.buckets[hole] = Bucket::default();
    }
}

#[cfg(test)]
mod tests {
    use super::Index;
    use std::collections::HashMap;

    /// Random inserts and removals against a `HashMap`, with hashes from a small range so
    /// that runs collide, wrap around the end and are shifted back on removal.
    #[test]
    fn agrees_with_a_map_under_heavy_collisions() {
        for range in [1u32, 7, 64, u32::MAX] {
            let mut seed = 0x2545_F491_4F6C_DD1Du64 ^ u64::from(range);
            let mut next = move || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let mut index = Index::default();
            let mut model: HashMap<u32, u32> = HashMap::new(); // handle → hash
            for _ in 0..20_000 {
                let handle = (next() % 300) as u32;
                match model.get(&handle) {
                    Some(&hash) if next() % 2 == 0 => {
                        index.remove(hash, handle);
                        model.remove(&handle);
                    }
                    Some(_) => {}
                    None => {
                        let hash = (next() as u32) % range;
                        index.insert(hash, handle);
                        model.insert(handle, hash);
                    }
                }
                assert_eq!(index.len(), model.len());
                let probe = (next() % 300) as u32;
                let hash = model.get(&probe).copied().unwrap_or(0);
                let found = index.find(hash, |h| h == probe);
                assert_eq!(found, model.get(&probe).map(|_| probe));
            }
            for (&handle, &hash) in &model {
                assert_eq!(index.find(hash, |h| h == handle), Some(handle));
            }
        }
    }
}
