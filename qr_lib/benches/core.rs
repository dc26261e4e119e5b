//! `cargo bench -p qr_lib`: the core against the article's configuration,
//! where its time goes, and how it grows with the text.
//!
//! Prints three tables: per text set, the mean time per call and the mean
//! PNG size of both, and the speed-up (calls alternate between the two in
//! rounds so that a noisy neighbour slows both alike); the same sets stage by
//! stage; and time and size against text length. Each figure is the median
//! of its rounds.

#[path = "baseline.rs"]
mod baseline;
#[path = "stage_inputs.rs"]
mod stage_inputs;
#[path = "texts.rs"]
mod texts;

use stage_inputs::{stage_inputs, StageInputs};

use std::hint::black_box;
use std::time::{Duration, Instant};

const ROUNDS: usize = 15;
const ROUND_TIME: Duration = Duration::from_millis(100);
const STAGE_ROUND_TIME: Duration = Duration::from_millis(20);
/// Text lengths of the cost curve, in bytes.
pub const CURVE_LENGTHS: [usize; 6] = [16, 64, 128, 256, 384, 512];

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
    one_round(texts, ROUND_TIME, |t: &String| f(t))
}

/// Mean microseconds of `f` per item over one round of about `time`.
fn one_round<T, R>(items: &[T], time: Duration, f: impl Fn(&T) -> R) -> f64 {
    let start = Instant::now();
    let mut calls = 0;
    while start.elapsed() < time {
        for item in items {
            black_box(f(black_box(item)));
        }
        calls += items.len();
    }
    start.elapsed().as_secs_f64() * 1e6 / calls as f64
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Mean microseconds of `f` per item, median of `ROUNDS` rounds.
fn per_item<T, R>(items: &[T], f: impl Fn(&T) -> R) -> f64 {
    median(
        (0..ROUNDS)
            .map(|_| one_round(items, STAGE_ROUND_TIME, &f))
            .collect(),
    )
}

/// Each stage timed alone on the previous stage's outputs for `texts`.
fn stage_times(texts: &[String]) -> Vec<(&'static str, f64)> {
    use qr_lib::stages::*;
    let StageInputs {
        data,
        codewords,
        placed,
        symbols,
        images,
        pngs,
    } = stage_inputs(texts);
    let deflate_time = per_item(&images, |image| {
        let mut out = Vec::with_capacity(1024);
        deflate(&mut out, image);
        out
    });
    let stages = vec![
        (
            "segmentation + data encoding",
            per_item(texts, |t| segment(t.as_bytes())),
        ),
        ("Reed-Solomon", per_item(&data, error_correction)),
        ("placement", per_item(&codewords, place)),
        ("mask choice", per_item(&placed, choose_mask)),
        ("rasterisation", per_item(&symbols, raster)),
        ("deflate + Adler-32", deflate_time),
        // Framing is a few copies; its cost is the CRC over the whole PNG.
        (
            "PNG chunks + CRC-32",
            per_item(&pngs, |p| crc32fast::hash(p)),
        ),
    ];
    let sum = stages.iter().map(|(_, t)| t).sum();
    let whole = per_item(texts, |t| qr_lib::generate_qr_code(t));
    stages
        .into_iter()
        .chain([("sum of stages", sum), ("generate_qr_code", whole)])
        .collect()
}

fn mean_bytes(texts: &[String], f: &dyn Fn(&str) -> Vec<u8>) -> f64 {
    texts.iter().map(|t| f(t).len()).sum::<usize>() as f64 / texts.len() as f64
}

fn main() {
    let urls = texts::urls();
    let all: Vec<String> = urls.iter().cloned().chain(texts::edge()).collect();
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
    let sets = [
        ("ten article URLs", &urls),
        ("all shared texts", &all),
        ("510-512 byte texts", &long),
    ];
    for (name, texts) in sets {
        let (ours, theirs) = time_pair(texts, &core, &base);
        println!(
            "| {name} | {} | {ours:.1} | {theirs:.1} | {:.1}x | {:.0} | {:.0} |",
            texts.len(),
            theirs / ours,
            mean_bytes(texts, &core),
            mean_bytes(texts, &base),
        );
    }

    println!(
        "\nStage by stage, us per call (each stage timed alone on the previous one's output)\n"
    );
    println!("| stage | {} |", sets.map(|(name, _)| name).join(" | "));
    println!("|---|{}", "---:|".repeat(sets.len()));
    let columns: Vec<Vec<(&str, f64)>> = sets.iter().map(|(_, texts)| stage_times(texts)).collect();
    for row in 0..columns[0].len() {
        let cells: Vec<String> = columns.iter().map(|c| format!("{:.2}", c[row].1)).collect();
        println!("| {} | {} |", columns[0][row].0, cells.join(" | "));
    }

    println!("\nCost against text length (URL-like text, 8 texts per length)\n");
    println!("| bytes | us/call | PNG bytes | version |");
    println!("|---:|---:|---:|---:|");
    for len in CURVE_LENGTHS {
        let texts = texts::curve_texts(len);
        let us = per_item(&texts, |t| qr_lib::generate_qr_code(t).unwrap());
        let version = {
            use qr_lib::stages::*;
            let symbol = choose_mask(&place(&error_correction(
                &segment(texts[0].as_bytes()).unwrap(),
            )));
            (symbol.width - 17) / 4
        };
        println!(
            "| {len} | {us:.1} | {:.0} | {version} |",
            mean_bytes(&texts, &core)
        );
    }
}
