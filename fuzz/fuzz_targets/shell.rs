//! Shell command classification with the built-in rules.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| guard::robustness::check_shell(data));
