//! Judge answers: finding the JSON object, the nonce and the fields.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| guard::robustness::check_judge_answer(data));
