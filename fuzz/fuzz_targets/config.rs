//! Config layers and detector files, user regexes included.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| guard::robustness::check_config(data));
