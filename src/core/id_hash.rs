//! A hasher for request ids that keeps consecutive ids in neighbouring buckets.
//!
//! Drivers hand out ids counting up, so a lock's request and release touch memory next to
//! the previous lock's: the map stays cache-friendly however many locks are held. The low
//! bits (the bucket) are the id itself; the top 7 bits (the tag `HashMap` compares before
//! keys) are mixed so that a probe still rejects its neighbours without reading them.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::types::RequestId;

pub(crate) type IdMap<V> = HashMap<RequestId, V, BuildHasherDefault<IdHasher>>;

#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        let tag = self.0.wrapping_mul(0x9E37_79B9_7F4A_7C15) & (0x7F << 57);
        (self.0 & !(0x7F << 57)) | tag
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used by `RequestId`; fold anything else in for completeness.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = id;
    }
}
