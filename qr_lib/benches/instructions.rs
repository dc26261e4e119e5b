//! `cargo bench -p qr_lib --bench instructions`: instructions per call of
//! each stage, counted by valgrind (cachegrind), for the ten URLs and the
//! 510-512-byte texts.
//!
//! Time on a shared machine moves 10-50% between runs (see docs/benchmark.md), and
//! this VM has no hardware counters for `perf stat`. An instruction count
//! under valgrind does not move: two builds of the core can be compared to
//! the instruction, where `--bench core` cannot tell 10% from noise.
//! Instructions are not time (a cache miss or a slow divide costs more than
//! an add), so a change should show in both before it is claimed.
//!
//! The binary runs itself under valgrind once per (set, stage, count): a
//! worker prepares every stage's input, then runs one stage `count` times
//! over the set. Two counts apart, the difference is the stage alone.
//!
//! `cargo bench -p qr_lib --bench instructions -- --by-image` counts the
//! deflate stage image by image instead: a set's mean hides that its images
//! take different paths (the scale decides whether the parse uses its hash
//! chain).

#[path = "stage_inputs.rs"]
mod stage_inputs;
// Its cost-curve texts are for the time bench.
#[path = "texts.rs"]
#[allow(dead_code)]
mod texts;

use std::hint::black_box;
use std::process::Command;

use stage_inputs::stage_inputs;

const STAGES: [&str; 8] = [
    "segmentation + data encoding",
    "Reed-Solomon",
    "placement",
    "mask choice",
    "rasterisation",
    "deflate + Adler-32",
    "PNG chunks + CRC-32",
    "generate_qr_code",
];
/// Passes over the set in the longer of a worker's two runs.
const PASSES: u64 = 20;

fn sets() -> Vec<(&'static str, Vec<String>)> {
    let urls = texts::urls();
    let long = urls
        .iter()
        .cloned()
        .chain(texts::edge())
        .filter(|t| t.len() >= 510)
        .collect();
    vec![("ten article URLs", urls), ("510-512 byte texts", long)]
}

const DEFLATE: usize = 5;

/// Runs stage `stage` `passes` times over set `set` (or only its text
/// `only`), after preparing all inputs.
fn worker(set: usize, stage: usize, passes: u64, only: Option<usize>) {
    use qr_lib::stages::*;
    let mut texts = sets().swap_remove(set).1;
    if let Some(i) = only {
        texts = vec![texts.swap_remove(i)];
    }
    let texts = &texts;
    let inputs = stage_inputs(texts);
    // Once more each, so lazily built tables are made in both runs alike.
    for t in texts {
        black_box(qr_lib::generate_qr_code(t).unwrap());
    }
    for _ in 0..passes {
        for (i, text) in texts.iter().enumerate() {
            match stage {
                0 => drop(black_box(segment(black_box(text.as_bytes())))),
                1 => drop(black_box(error_correction(black_box(&inputs.data[i])))),
                2 => drop(black_box(place(black_box(&inputs.codewords[i])))),
                3 => drop(black_box(choose_mask(black_box(&inputs.placed[i])))),
                4 => drop(black_box(raster(black_box(&inputs.symbols[i])))),
                DEFLATE => {
                    let mut out = Vec::with_capacity(1024);
                    deflate(&mut out, black_box(&inputs.images[i]));
                    black_box(out);
                }
                6 => drop(black_box(crc32fast::hash(black_box(&inputs.pngs[i])))),
                _ => drop(black_box(qr_lib::generate_qr_code(black_box(text)))),
            }
        }
    }
}

/// Instructions valgrind counts for one worker run.
fn instructions(set: usize, stage: usize, passes: u64, only: Option<usize>) -> u64 {
    let me = std::env::current_exe().unwrap();
    let out = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(me)
        .args([
            "--worker",
            &set.to_string(),
            &stage.to_string(),
            &passes.to_string(),
        ])
        .args(only.map(|i| i.to_string()))
        .output()
        .expect("valgrind runs (scripts/setup.sh installs it)");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "worker failed: {stderr}");
    let line = stderr
        .lines()
        .find(|l| l.contains("I   refs:") || l.contains("I refs:"))
        .unwrap_or_else(|| panic!("no instruction count in: {stderr}"));
    line.rsplit(':')
        .next()
        .unwrap()
        .trim()
        .replace(',', "")
        .parse()
        .unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--worker") {
        let n = |i: usize| args[at + i].parse::<u64>().unwrap();
        let only = args.get(at + 4).map(|i| i.parse().unwrap());
        worker(n(1) as usize, n(2) as usize, n(3), only);
        return;
    }
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("instructions: valgrind not found (scripts/setup.sh installs it)");
        std::process::exit(1);
    }
    let sets = sets();
    if args.iter().any(|a| a == "--by-image") {
        by_image(&sets);
        return;
    }
    println!("Instructions per call (valgrind cachegrind; each stage alone on the previous one's output)\n");
    println!(
        "| stage | {} |",
        sets.iter()
            .map(|(name, _)| *name)
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---:|".repeat(sets.len()));
    for (stage, name) in STAGES.iter().enumerate() {
        let cells: Vec<String> = sets
            .iter()
            .enumerate()
            .map(|(set, (_, texts))| {
                let extra =
                    instructions(set, stage, PASSES, None) - instructions(set, stage, 0, None);
                let per_call = extra / (PASSES * texts.len() as u64);
                per_call.to_string()
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
}

/// The deflate stage's instructions per call for each image of each set,
/// with what decides its path: the scale, the bytes per scanline, how many
/// values a pixel byte takes (the parse uses its hash chain from
/// `CHAIN_MIN_BYTE_VALUES` on, in `src/png/deflate/parse.rs`).
fn by_image(sets: &[(&str, Vec<String>)]) {
    println!("Deflate instructions per call, image by image (valgrind cachegrind)\n");
    println!("| set | text | scale | line bytes | byte values | zlib bytes | instructions |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for (set, (name, texts)) in sets.iter().enumerate() {
        let images = stage_inputs(texts).images;
        for (i, image) in images.iter().enumerate() {
            let mut zlib = Vec::new();
            qr_lib::stages::deflate(&mut zlib, image);
            let extra = instructions(set, DEFLATE, PASSES, Some(i))
                - instructions(set, DEFLATE, 0, Some(i));
            println!(
                "| {name} | {} | {} | {} | {} | {} | {} |",
                i + 1,
                image.scale,
                image.stride,
                image.byte_values,
                zlib.len(),
                extra / PASSES
            );
        }
    }
}
