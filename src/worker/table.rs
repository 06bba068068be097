//! The driver's tables (ports, death watches, timers): one entry per connected context at
//! most, so a vector searched in order serves them, with none of a hash map's code per
//! key type in the module.

use crate::prelude::*;

pub(crate) struct Table<K, V>(Vec<(K, V)>);

impl<K: PartialEq, V> Table<K, V> {
    pub(crate) const fn new() -> Self {
        Table(Vec::new())
    }

    pub(crate) fn get(&self, key: &K) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub(crate) fn remove(&mut self, key: &K) -> Option<V> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.swap_remove(at).1)
    }

    /// Inserts `value` under `key`; returns the value it replaced.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        let old = self.remove(&key);
        self.0.push((key, value));
        old
    }
}
