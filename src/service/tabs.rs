//! Lock workers hosted by tabs, where `SharedWorker` is missing: each tab runs the lock
//! worker in a dedicated worker of its own, and the election (election.rs) makes one of them
//! serve the origin, reached by every other context over `BroadcastChannel`
//! (docs/architecture.md "Where SharedWorker is missing").
//!
//! A tab can be hidden, and a hidden tab may be frozen (Chromium's `freeze`, Safari's
//! suspension of background pages) with its workers: a frozen leader serves no one, and its
//! lifeline stays open, so no one claims over it. So the service hands itself to a visible
//! tab's worker while it can:
//! - A leader whose tab becomes hidden asks the origin's lock workers ([`Signal::Ask`]); a
//!   follower whose tab is visible answers [`Signal::Visible`], and says so unasked when it
//!   starts following or its tab becomes visible (a SharedWorker, never hidden, too).
//! - A hidden leader that hears [`Signal::Visible`] resigns ([`Output::Resign`]): from then
//!   on nothing comes out of it, and the driver ends it. Its lifeline ends with it; the
//!   followers claim over it, a hidden tab's only after [`HIDDEN_CLAIM_MS`], so that a
//!   visible one wins; contexts re-declare to the new leader as after a worker's death
//!   (recovery.rs). With no visible tab, the hidden leader keeps the service.
//!
//! A leader frozen before it could resign is ended by its tab at `freeze` where there is
//! one (the glue's); otherwise it serves again when thawed, its lifeline never having ended,
//! so no other worker can have served meanwhile.

use super::election::Role;
use super::{Output, Service};

/// How long a follower in a hidden tab waits before claiming over a dead leader.
pub const HIDDEN_CLAIM_MS: u32 = 250;

/// What lock workers tell each other on their channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    /// A hidden leader asks whether some worker's tab is visible.
    Ask,
    /// This follower's tab is visible (or it is a SharedWorker).
    Visible,
}

impl Service {
    /// The tab hosting this worker became hidden or visible.
    pub fn handle_hidden(&mut self, hidden: bool) {
        self.hidden = hidden;
        match self.role {
            Role::Leading if hidden => self.outputs.push_back(Output::Tabs(Signal::Ask)),
            Role::Following(_) => self.announce(),
            _ => {}
        }
    }

    /// Another lock worker's signal.
    pub fn handle_signal(&mut self, signal: Signal) {
        match (signal, &self.role) {
            (Signal::Ask, Role::Following(_)) => self.announce(),
            (Signal::Visible, Role::Leading) if self.hidden => {
                self.role = Role::Resigned;
                self.outputs.push_back(Output::Resign);
            }
            _ => {}
        }
    }

    /// A follower in a visible tab says so.
    pub(super) fn announce(&mut self) {
        if !self.hidden {
            self.outputs.push_back(Output::Tabs(Signal::Visible));
        }
    }

    /// Whether this worker gave the service up.
    pub fn is_resigned(&self) -> bool {
        matches!(self.role, Role::Resigned)
    }
}
