//! `cargo bench -p qr_lib`: the core against the article's configuration.
//!
//! Prints, per text set, the mean time per call and the mean PNG size of
//! both, and the speed-up. Calls alternate between the two in rounds so that
//! a noisy neighbour slows both alike; each figure is the median of the rounds.

#[path = "baseline.rs"]
mod baseline;

use std::hint::black_box;
use std::time::{Duration, Instant};

const FIXTURE: &str = include_str!("../../test/fixtures/texts.json");
const ROUNDS: usize = 15;
const ROUND_TIME: Duration = Duration::from_millis(100);

/// Mean microseconds per call of `f` over `texts`, median of `ROUNDS` rounds
/// (interleaved with `other` so both see the same machine).
fn time_pair(
    texts: &[String],
    f: &dyn Fn(&str) -> Vec<u8>,
    other: &dyn Fn(&str) -> Vec<u8>,
) -> (f64, f64) {
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..ROUNDS {
        ours.push(round(texts, f));
        theirs.push(round(texts, other));
    }
    (median(ours), median(theirs))
}

fn round(texts: &[String], f: &dyn Fn(&str) -> Vec<u8>) -> f64 {
    let start = Instant::now();
    let mut calls = 0;
    while start.elapsed() < ROUND_TIME {
        for text in texts {
            black_box(f(black_box(text)));
        }
        calls += texts.len();
    }
    start.elapsed().as_secs_f64() * 1e6 / calls as f64
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn mean_bytes(texts: &[String], f: &dyn Fn(&str) -> Vec<u8>) -> f64 {
    texts.iter().map(|t| f(t).len()).sum::<usize>() as f64 / texts.len() as f64
}

fn main() {
    let fixture: serde_json::Value = serde_json::from_str(FIXTURE).unwrap();
    let strings = |v: &serde_json::Value| -> Vec<String> {
        let values: Vec<&serde_json::Value> = match v {
            serde_json::Value::Array(a) => a.iter().collect(),
            serde_json::Value::Object(o) => o.values().collect(),
            _ => unreachable!(),
        };
        values
            .iter()
            .map(|s| s.as_str().unwrap().to_owned())
            .collect()
    };
    let urls = strings(&fixture["urls"]);
    let all: Vec<String> = urls
        .iter()
        .cloned()
        .chain(strings(&fixture["edge"]))
        .collect();
    let long: Vec<String> = all.iter().filter(|t| t.len() >= 510).cloned().collect();

    let core = |t: &str| qr_lib::generate_qr_code(t).unwrap();
    let base = |t: &str| baseline::generate_qr_code(t);

    println!(
        "qr_lib vs the article's configuration (qrcode mask + image 8-bit PNG, Default, no filter)"
    );
    println!(
        "median of {ROUNDS} interleaved rounds of {} ms each\n",
        ROUND_TIME.as_millis()
    );
    println!("| texts | n | qr_lib us/call | baseline us/call | speed-up | qr_lib bytes | baseline bytes |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (name, texts) in [
        ("ten article URLs", &urls),
        ("all shared texts", &all),
        ("510-512 byte texts", &long),
    ] {
        let (ours, theirs) = time_pair(texts, &core, &base);
        println!(
            "| {name} | {} | {ours:.1} | {theirs:.1} | {:.1}x | {:.0} | {:.0} |",
            texts.len(),
            theirs / ours,
            mean_bytes(texts, &core),
            mean_bytes(texts, &base),
        );
    }
}
