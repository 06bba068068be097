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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;
    use crate::protocol::text;
    use crate::service::{Leader, Timer};

    fn leader(epoch: &str) -> Leader {
        Leader {
            epoch: text(epoch),
            url: text("about:blank#web-locks-polyfill"),
            lifeline: text(&("web-locks-worker-".to_owned() + epoch)),
        }
    }

    fn outputs(service: &mut Service) -> Vec<Output> {
        core::iter::from_fn(|| service.poll_output()).collect()
    }

    #[test]
    fn a_hidden_leader_asks_and_resigns_to_a_visible_tab_then_outputs_nothing() {
        let mut s = Service::new(&text("me"));
        s.handle_claimed(leader("me"), Vec::new());
        outputs(&mut s);
        s.handle_signal(Signal::Visible); // visible itself: keeps serving
        assert_eq!(outputs(&mut s), []);
        s.handle_hidden(true);
        assert_eq!(outputs(&mut s), [Output::Tabs(Signal::Ask)]);
        s.handle_signal(Signal::Visible);
        assert_eq!(outputs(&mut s), [Output::Resign]);
        assert!(s.is_resigned() && !s.is_leading());
        // A port that connects now is neither served nor redirected.
        s.handle_connect(crate::service::PortId(1));
        s.handle_timer(Timer::Recovery);
        assert_eq!(outputs(&mut s), []);
    }

    #[test]
    fn a_visible_follower_says_so_and_a_hidden_one_claims_late() {
        let mut s = Service::new(&text("me"));
        s.handle_claimed(leader("other"), Vec::new());
        let first = outputs(&mut s);
        assert!(first.contains(&Output::Tabs(Signal::Visible)), "{first:?}");
        s.handle_signal(Signal::Ask);
        assert_eq!(outputs(&mut s), [Output::Tabs(Signal::Visible)]);
        s.handle_hidden(true);
        s.handle_signal(Signal::Ask);
        assert_eq!(outputs(&mut s), []);
        // The leader's lifeline ends: a hidden follower waits before claiming over it.
        s.handle_watch_end(&leader("other").lifeline, crate::service::WatchEnd::Died);
        assert_eq!(
            outputs(&mut s),
            [Output::SetTimer(Timer::Claim, HIDDEN_CLAIM_MS)]
        );
        s.handle_timer(Timer::Claim);
        assert_eq!(outputs(&mut s), [Output::Claim(text("other"))]);
    }
}
