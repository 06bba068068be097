//! Small tables (the service's clients, ports and watched databases; the driver's ports,
//! death watches and timers; the core's clients): one entry per connected context at most,
//! so a vector searched in order serves them, with none of a hash map's code per key type in
//! the module.

use crate::prelude::*;
use core::borrow::Borrow;

#[derive(Debug)]
pub(crate) struct Table<K, V>(Vec<(K, V)>);

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Table(Vec::new())
    }
}

impl<K: PartialEq, V> Table<K, V> {
    pub(crate) const fn new() -> Self {
        Table(Vec::new())
    }

    fn position<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
    {
        self.0.iter().position(|(k, _)| k.borrow() == key)
    }

    pub(crate) fn get<Q: PartialEq + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|at| &self.0[at].1)
    }

    pub(crate) fn get_mut<Q: PartialEq + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.position(key).map(|at| &mut self.0[at].1)
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
        Some(self.0.swap_remove(at))
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
        self.0.push((key, value));
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
                self.0.push((key, V::default()));
                self.0.len() - 1
            }
        };
        &mut self.0[at].1
    }

    pub(crate) fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v));
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &K> {
        self.0.iter().map(|(k, _)| k)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
