//! Secret redaction of hostile text.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| guard::robustness::check_redact(data));
