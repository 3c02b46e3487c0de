//! The floor of the whole-process comparison: a Rust program that only reads
//! its standard input to the end and exits 0. Any hook costs at least this
//! much (process start, dynamic loading, reading the payload); `guard hook`
//! on a Layer-1 miss is measured against it.

use std::io::Read;

fn main() {
    let mut payload = Vec::new();
    let _ = std::io::stdin().lock().read_to_end(&mut payload);
    std::hint::black_box(&payload);
}
