//! The whole `guard hook` path in-process, many cases: whatever the payload,
//! the answer is one its agent reads (exit 0, or 2 with a reason). The only
//! test in this binary, because it points HOME and the XDG directories at a
//! temp dir for the whole process.

#[path = "security/gen.rs"]
mod gen;

use proptest::prelude::*;

#[test]
fn the_hook_path_answers_every_payload_in_a_form_its_agent_reads() {
    let dir = tempfile::tempdir().unwrap();
    guard::robustness::isolate_environment(dir.path()).unwrap();
    let config = ProptestConfig {
        cases: 300,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let strategy = (
        any::<u8>(),
        prop_oneof![
            gen::hook_payload().prop_map(|p| p.to_string().into_bytes()),
            prop::collection::vec(any::<u8>(), 0..256),
        ],
    );
    proptest::test_runner::TestRunner::new(config)
        .run(&strategy, |(agent, payload)| {
            let mut data = vec![agent];
            data.extend_from_slice(&payload);
            guard::robustness::check_hook(&data);
            Ok(())
        })
        .unwrap();
}
