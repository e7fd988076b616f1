//! `chatsurface search` across 100 sessions of 10,000 messages each: the index built once,
//! then what a search costs when it exists (bringing it up to date, which finds nothing
//! changed, and the query), and after one session grew (that session indexed again).
#![allow(
    clippy::unwrap_used,
    reason = "a test or benchmark stops at the first surprise"
)]

use chatsurface::agents::catalog::Folders;
use chatsurface::dev::generate::{generate, GeneratorConfig};
use chatsurface::search_index::SearchIndex;
use chatsurface_model::LogWriter;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;
use std::path::Path;
use std::time::Instant;

const SESSIONS: u64 = 100;

fn write_sessions(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    for seed in 1..=SESSIONS {
        let config = GeneratorConfig {
            messages: 10_000,
            threads: 40,
            batches: 20,
            seed,
        };
        let mut writer = LogWriter::open(&dir.join(format!("s{seed}.jsonl"))).unwrap();
        writer.append_all(generate(&config)).unwrap();
    }
}

fn search(c: &mut Criterion) {
    let root = tempfile::tempdir().unwrap();
    let sessions = root.path().join("sessions");
    write_sessions(&sessions);
    let folders = Folders {
        native: Some(sessions.clone()),
        ..Folders::default()
    };
    let index_dir = root.path().join("search-index");
    let started = Instant::now();
    SearchIndex::open_current(&index_dir, &folders).unwrap();
    eprintln!(
        "index of {SESSIONS} sessions × 10,000 messages built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let mut group = c.benchmark_group("search_100_sessions_10k_messages");
    group.sample_size(20);
    for query in ["layout", "window closes", "zzzznotthere"] {
        group.bench_function(format!("open_up_to_date_and_search_{query}"), |b| {
            b.iter(|| {
                let index = SearchIndex::open_current(&index_dir, &folders).unwrap();
                black_box(index.search(query, 20, |_| true).unwrap().len());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
