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
//! leader needs. A worker asks for its lifeline database before its record can be written
//! (in the same task as the claim's first request), so a worker that reads
//! the record and then watches the recorded leader's lifeline (queued behind that open)
//! finds it alive for as long as it lives. A follower watches it; when it ends, every
//! follower claims over it, and exactly one wins. A new leader surveys the origin's
//! databases and waits for the survivors of every build (recovery.rs), as after a restart.
//!
//! Until a claim is answered, what arrives waits, in order: nothing is served or redirected
//! before this worker knows which it does.

use crate::prelude::*;

use super::{Output, PortId, Recovery, Service, Text, Timer, HIDDEN_CLAIM_MS};
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
    /// Another worker serves: every port is sent there.
    Following(Leader),
    /// It gave the service up (tabs.rs): nothing more comes out of it but `Resign`.
    Resigned,
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
            self.recovery = Recovery::Surveying;
            for (port, message) in waiting {
                self.handle_message(port, message);
            }
            self.handle_survey(survey);
        } else {
            self.outputs
                .push_back(Output::Watch(leader.lifeline.clone()));
            self.role = Role::Following(leader);
            self.announce();
            // Every port so far, silent ones too: one whose context has since replaced it
            // (by a port to the leader of then, handed on late by a courier) must not speak
            // here once this worker serves, with what it knew then.
            let ports: Vec<PortId> = self.ports.keys().copied().collect();
            for port in ports {
                self.connected(port);
            }
        }
        self.carry_out();
    }

    /// Whether this worker serves the origin.
    pub fn is_leading(&self) -> bool {
        matches!(self.role, Role::Leading)
    }

    /// A port connected: while this worker follows, its context is told where the serving
    /// worker is (`redirect`, with the URL that reaches it), and the port is closed.
    pub(super) fn connected(&mut self, port: PortId) {
        if let Role::Following(leader) = &self.role {
            let url = leader.url.clone();
            self.ports.remove(&port);
            self.outputs
                .push_back(Output::Send(port, WorkerMessage::Redirect { url }));
            self.outputs.push_back(Output::Close(port));
        }
    }

    /// A message before this worker knows whether it serves: kept, in arrival order, until
    /// it does (`None`); once it serves, given back.
    pub(super) fn elsewhere(
        &mut self,
        port: PortId,
        message: ClientMessage,
    ) -> Option<ClientMessage> {
        match &mut self.role {
            Role::Electing(waiting) => {
                waiting.push((port, message));
                None
            }
            Role::Resigned => None,
            _ => Some(message),
        }
    }

    /// The claim over the dead leader, delayed or not.
    pub(super) fn claim_now(&mut self) {
        if let Some(over) = self.over.take() {
            self.outputs.push_back(Output::Claim(over));
        }
    }

    /// A watch ended: if it was the followed leader's lifeline (it died), claim over it
    /// (`true`).
    pub(super) fn leader_ended(&mut self, db: &[u16]) -> bool {
        match &self.role {
            Role::Following(leader) if *leader.lifeline == *db => {
                self.over = Some(leader.epoch.clone());
                self.role = Role::Electing(Vec::new());
                // (A hidden tab's lets a visible one's win: tabs.rs.)
                if self.hidden {
                    let delay = Output::SetTimer(Timer::Claim, HIDDEN_CLAIM_MS);
                    self.outputs.push_back(delay);
                } else {
                    self.claim_now();
                }
                true
            }
            _ => false,
        }
    }
}
