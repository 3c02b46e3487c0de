//! Agent payloads through every built-in adapter's parser and renderer.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| guard::robustness::check_payload(data));
