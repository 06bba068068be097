//! Core throughput, printed (not asserted): `cargo bench --bench core`.
//! A plain main (harness = false) so it needs no benchmark framework.

use std::hint::black_box;
use std::time::Instant;

use web_locks::core::{ClientId, Flavor, LockManager, Mode, RequestId};

/// A name's UTF-16 code units, as the core takes names.
fn u(name: &str) -> Vec<u16> {
    name.encode_utf16().collect()
}

/// request + grant + release of one lock, `ops` times, with `held` other names held.
fn request_release(held: usize, ops: u64) -> f64 {
    let mut m = LockManager::new();
    let mut id = 0u64;
    for i in 0..held {
        id += 1;
        let name = format!("resource/{i}");
        m.request(
            ClientId(0),
            RequestId(id),
            &u(&name),
            Mode::Exclusive,
            Flavor::Queue,
        )
        .unwrap();
    }
    while m.poll_action().is_some() {}
    let the_lock = u("the-lock");
    let start = Instant::now();
    for _ in 0..ops {
        id += 1;
        m.request(
            ClientId(1),
            RequestId(id),
            &the_lock,
            Mode::Exclusive,
            Flavor::Queue,
        )
        .unwrap();
        black_box(m.poll_action());
        m.release(RequestId(id));
    }
    ops as f64 / start.elapsed().as_secs_f64()
}

/// The same with contention: two clients alternate on one name (each release hands over).
fn handoff(ops: u64) -> f64 {
    let mut m = LockManager::new();
    m.request(
        ClientId(0),
        RequestId(0),
        &u("x"),
        Mode::Exclusive,
        Flavor::Queue,
    )
    .unwrap();
    let x = u("x");
    let start = Instant::now();
    for id in 1..=ops {
        m.request(
            ClientId((id % 2) as u32),
            RequestId(id),
            &x,
            Mode::Exclusive,
            Flavor::Queue,
        )
        .unwrap();
        m.release(RequestId(id - 1));
        black_box(m.poll_action());
    }
    ops as f64 / start.elapsed().as_secs_f64()
}

/// Scopes of 4 names out of 1,000 (pseudo-random, exclusive), 8 in flight: each op requests
/// one and releases (or, if still waiting, aborts) the one made 8 ops before.
fn scopes(ops: u64) -> f64 {
    let names: Vec<Vec<u16>> = (0..1_000).map(|i| u(&format!("resource/{i:03}"))).collect();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut scopes: Vec<[usize; 4]> = Vec::with_capacity(4096);
    for _ in 0..4096 {
        let mut picked = [0usize; 4];
        let mut n = 0;
        while n < 4 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = (seed % 1_000) as usize;
            if !picked[..n].contains(&i) {
                picked[n] = i;
                n += 1;
            }
        }
        picked.sort();
        scopes.push(picked);
    }
    let mut m = LockManager::new();
    let start = Instant::now();
    for id in 0..ops {
        let scope = scopes[(id % 4096) as usize].map(|i| names[i].as_slice());
        m.request_scope(
            ClientId((id % 8) as u32),
            RequestId(id),
            &scope,
            Mode::Exclusive,
            Flavor::Queue,
        )
        .unwrap();
        if id >= 8 {
            let old = RequestId(id - 8);
            if m.release(old) == web_locks::core::ReleaseOutcome::NotHeld {
                m.abort(old);
            }
        }
        while m.poll_action().is_some() {}
    }
    ops as f64 / start.elapsed().as_secs_f64()
}

fn snapshot_cost(held: usize, rounds: u32) -> f64 {
    let mut m = LockManager::new();
    for i in 0..held {
        let name = format!("resource/{i}");
        m.request(
            ClientId((i % 16) as u32),
            RequestId(i as u64),
            &u(&name),
            Mode::Shared,
            Flavor::Queue,
        )
        .unwrap();
    }
    let start = Instant::now();
    for _ in 0..rounds {
        black_box(m.snapshot());
    }
    start.elapsed().as_secs_f64() * 1e3 / rounds as f64
}

fn main() {
    println!("web-locks core benchmark (one thread; higher ops/s is better)");
    println!("{:<48} {:>14}", "case", "result");
    for held in [0usize, 1, 1_000, 100_000] {
        let rate = request_release(held, 3_000_000);
        println!(
            "{:<48} {:>10.2} M ops/s",
            format!("request+grant+release, {held} other names held"),
            rate / 1e6
        );
    }
    println!(
        "{:<48} {:>10.2} M ops/s",
        "two-client handoff on one name",
        handoff(3_000_000) / 1e6
    );
    println!(
        "{:<48} {:>10.2} M ops/s",
        "4-name scopes over 1,000 names, 8 in flight",
        scopes(1_000_000) / 1e6
    );
    println!(
        "{:<48} {:>13.3} ms",
        "snapshot() with 10,000 held",
        snapshot_cost(10_000, 200)
    );
    dist_sizes();
}

/// The built files' sizes (after `npm run build`; gzip sizes: `node scripts/sizes.mjs`).
fn dist_sizes() {
    let Ok(dir) = std::fs::read_dir("dist") else {
        println!("(no dist/: run `npm run build` for the size breakdown)");
        return;
    };
    let mut files: Vec<(String, u64)> = dir
        .filter_map(|e| e.ok())
        .filter_map(|e| Some((e.file_name().into_string().ok()?, e.metadata().ok()?.len())))
        .collect();
    files.sort();
    println!("\n{:<48} {:>14}", "dist file", "bytes");
    for (name, bytes) in files {
        println!("{name:<48} {bytes:>14}");
    }
}
