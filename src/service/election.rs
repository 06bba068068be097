//! One lock service per origin, whatever URL its lock workers have.
//!
//! A SharedWorker is one per script URL, so two builds of an app (a deploy while tabs are
//! open), two copies of the package, or a dev server that varies the wasm's URL per page
//! start several lock workers on one origin. Exactly one of them serves; the others send
//! every context that reaches them to it (`redirect`, with the URL that reaches the serving
//! worker even once its files are gone).
//!
//! The serving worker (the leader) is recorded in one IndexedDB record per origin, which the
//! driver reads and writes in one `readwrite` transaction (these are serialized across the
//! origin): a new worker's first claim (the driver's) records it unless another is
//! recorded, [`Output::Claim`] over the one named, found dead; [`Service::handle_claimed`]
//! gets the leader recorded after it, and the survey of the origin's databases a new
//! leader needs. A worker opens its lifeline database before it claims, so a worker that reads
//! the record and then watches the recorded leader's lifeline (queued behind that open)
//! finds it alive for as long as it lives. A follower watches it; when it ends, every
//! follower claims over it, and exactly one wins. A new leader surveys the origin's
//! databases and waits for the survivors of every build (recovery.rs), as after a restart.
//!
//! Until a claim is answered, what arrives waits, in order: nothing is served or redirected
//! before this worker knows which it does.

use crate::prelude::*;

use super::{Output, PortId, Recovery, Service, Text};
use crate::protocol::{ClientMessage, WorkerMessage};

/// A serving worker as the record names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Leader {
    /// Its identity (the epoch in its clients' welcome).
    pub epoch: Text,
    /// The URL contexts construct its SharedWorker with.
    pub url: Text,
    /// Its lifeline database, held open for its life.
    pub lifeline: Text,
}

pub(super) enum Role {
    /// A claim is under way: the ports' messages wait, in arrival order.
    Electing(Vec<(PortId, ClientMessage)>),
    Leading,
    /// Another worker serves: every context that speaks is sent there.
    Following(Leader),
}

impl Service {
    /// The claim was carried out: `leader` is the worker recorded now (this one, if it won);
    /// `survey`, the origin's databases that existed meanwhile (see recovery.rs).
    pub fn handle_claimed(&mut self, leader: Leader, survey: Vec<Text>) {
        let Role::Electing(waiting) = &mut self.role else {
            return;
        };
        let waiting = core::mem::take(waiting);
        if leader.epoch == self.epoch {
            self.role = Role::Leading;
            self.url = leader.url;
            self.recovery = Recovery::Surveying;
            for (port, message) in waiting {
                self.handle_message(port, message);
            }
            self.handle_survey(survey);
        } else {
            self.outputs
                .push_back(Output::Watch(leader.lifeline.clone()));
            for (port, _) in waiting {
                self.redirect(port, leader.url.clone());
            }
            // (Those yet silent too: see `connected`.)
            for port in self.ports.keys() {
                self.stale.insert(*port, ());
            }
            self.role = Role::Following(leader);
        }
        self.carry_out();
    }

    /// Whether this worker serves the origin.
    pub fn is_leading(&self) -> bool {
        matches!(self.role, Role::Leading)
    }

    /// A port connected. One that connects while this worker follows, or before, belongs to
    /// a context that may since have taken a port to the leader of then (this one, handed
    /// on late by a courier, was given up) and declared its locks there: should it first
    /// speak once this worker serves, it is sent to connect again, here, and declare its
    /// current state.
    pub(super) fn connected(&mut self, port: PortId) {
        if let Role::Following(_) = self.role {
            self.stale.insert(port, ());
        }
    }

    /// A message while this worker does not serve: kept until it knows which it does, or
    /// answered with the serving worker's URL (`None`); while it serves, given back.
    pub(super) fn elsewhere(
        &mut self,
        port: PortId,
        message: ClientMessage,
    ) -> Option<ClientMessage> {
        let stale = self.stale.remove(&port).is_some();
        let url = match &mut self.role {
            Role::Leading if !stale => return Some(message),
            Role::Leading => self.url.clone(),
            Role::Electing(waiting) => {
                if stale {
                    self.stale.insert(port, ());
                }
                waiting.push((port, message));
                return None;
            }
            Role::Following(leader) => leader.url.clone(),
        };
        self.redirect(port, url);
        None
    }

    /// A watch ended: if it was the followed leader's lifeline (it died), claim over it
    /// (`true`).
    pub(super) fn leader_ended(&mut self, db: &[u16]) -> bool {
        match &self.role {
            Role::Following(leader) if *leader.lifeline == *db => {
                let over = leader.epoch.clone();
                self.role = Role::Electing(Vec::new());
                self.outputs.push_back(Output::Claim(over));
                true
            }
            _ => false,
        }
    }

    /// Tells `port`'s context where the serving worker is (`url`), and closes the port.
    fn redirect(&mut self, port: PortId, url: Text) {
        if self.ports.remove(&port).is_some() {
            self.outputs
                .push_back(Output::Send(port, WorkerMessage::Redirect { url }));
            self.outputs.push_back(Output::Close(port));
        }
    }
}
