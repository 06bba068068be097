//! Small tables (the service's clients, ports and watched databases; the driver's ports,
//! death watches and timers; the core's clients): one entry per connected context at most,
//! so a vector searched in order serves them, with none of a hash map's code per key type in
//! the module. Keys and values are two vectors: a search's code depends on the key type
//! alone, and moving a value on removal is one `swap_remove` (~0.6 KB less wasm than one
//! vector of pairs, measured). Order is not kept: a removal moves the last entry.

use crate::prelude::*;
use core::borrow::Borrow;

#[derive(Debug)]
pub(crate) struct Table<K, V> {
    keys: Vec<K>,
    values: Vec<V>,
}

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Table::new()
    }
}

impl<K, V> Table<K, V> {
    pub(crate) const fn new() -> Self {
        Table {
            keys: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<K: PartialEq, V> Table<K, V> {
    fn position<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
    {
        self.keys.iter().position(|k| k.borrow() == key)
    }

    pub(crate) fn get<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|at| &self.values[at])
    }

    pub(crate) fn get_mut<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|at| &mut self.values[at])
    }

    pub(crate) fn contains_key<Q: PartialEq + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.position(key).is_some()
    }

    pub(crate) fn remove_entry<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
    {
        let at = self.position(key)?;
        Some(self.take(at))
    }

    pub(crate) fn remove<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.remove_entry(key).map(|(_, v)| v)
    }

    /// Inserts `value` under `key`; returns the value it replaced.
    pub(crate) fn insert(&mut self, key: K, value: V) -> Option<V> {
        let old = self.remove(&key);
        self.push(key, value);
        old
    }

    /// The value under `key`, inserted as `V::default()` if missing.
    pub(crate) fn get_or_default(&mut self, key: K) -> &mut V
    where
        V: Default,
    {
        let at = match self.position(&key) {
            Some(at) => at,
            None => {
                self.push(key, V::default());
                self.keys.len() - 1
            }
        };
        &mut self.values[at]
    }

    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        let mut at = 0;
        while at < self.keys.len() {
            if keep(&self.keys[at], &mut self.values[at]) {
                at += 1;
            } else {
                self.take(at);
            }
        }
    }

    fn push(&mut self, key: K, value: V) {
        self.keys.push(key);
        self.values.push(value);
    }

    /// The entry at `at`, removed; the last entry takes its place.
    fn take(&mut self, at: usize) -> (K, V) {
        (self.keys.swap_remove(at), self.values.swap_remove(at))
    }

    /// The key of the first value that satisfies `test`.
    pub(crate) fn key_where(&self, test: impl Fn(&V) -> bool) -> Option<&K> {
        self.values.iter().position(test).map(|at| &self.keys[at])
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.keys.iter()
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
