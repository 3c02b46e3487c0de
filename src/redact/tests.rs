//! Unit tests of redaction: typing, counting, placeholders, overlaps.

use super::*;

#[test]
fn typed_placeholder_and_count() {
    let r = redact("push with ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 please");
    assert_eq!(r.text, "push with [REDACTED:github-token] please");
    assert_eq!(r.counts.get("github-token"), Some(&1));
    assert_eq!(r.total(), 1);
}

#[test]
fn specific_rule_names_a_key_assigned_to_a_generic_name() {
    let r = redact("GITHUB_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    assert_eq!(r.text, "GITHUB_TOKEN=[REDACTED:github-token]");
    assert_eq!(r.counts.len(), 1);
}

#[test]
fn anthropic_wins_over_openai() {
    let r = redact("key sk-ant-api03-Zk3xQ9vLm2Pw8Rt5Yb1Nc7Hd4Jf6Gs0Ea");
    assert_eq!(r.text, "key [REDACTED:anthropic-key]");
}

#[test]
fn placeholders_are_left_alone() {
    for text in [
        "password=${DB_PASSWORD}",
        "api_key: <your-key-here>",
        "token = xxxxxxxxxxxxxxxx",
        "GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        "secret: \"{{ vault.secret }}\"",
        "password: changeme123",
        "password = ****************",
        "token: [REDACTED:github-token]",
    ] {
        assert_eq!(redact(text).text, text, "{text}");
    }
}

#[test]
fn key_named_words_that_are_not_random_stay() {
    for text in [
        "let token = compute_token(input);",
        "password: required",
        "the secret: patience",
        "auth_token: String,",
        "tokens = 12345678",
        "See the password field in settings.",
    ] {
        assert_eq!(redact(text).text, text, "{text}");
    }
}

#[test]
fn key_named_random_values_go() {
    let r = redact("DB_PASSWORD=hX9#kq2Lw!7z and \"client_secret\": \"Qm4v8Rz2Kx7Tn1Wp\"");
    assert_eq!(r.text, "DB_PASSWORD=[REDACTED:generic-secret] and \"client_secret\": \"[REDACTED:generic-secret]\"");
    assert_eq!(r.counts.get("generic-secret"), Some(&2));
}

#[test]
fn pem_block_without_end_is_redacted_to_the_end() {
    let r = redact("here:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nabc");
    assert_eq!(r.text, "here:\n[REDACTED:private-key]");
}

#[test]
fn url_password_only() {
    let r = redact("DATABASE_URL=postgres://app:Vq7pLx2Rm9@db.internal:5432/app");
    assert_eq!(
        r.text,
        "DATABASE_URL=postgres://app:[REDACTED:url-credentials]@db.internal:5432/app"
    );
}

#[test]
fn plain_text_is_returned_unchanged() {
    let text = "I ran cargo test and all 42 tests passed; the ask-for-review step is next.";
    let r = redact(text);
    assert_eq!(r.text, text);
    assert!(r.counts.is_empty());
}

#[test]
fn redaction_is_idempotent() {
    let once = redact("x AKIAQ3EGRT7UVWXYZ2AB y sk_live_4eC39HqLyjWDarjtT1zdp7dc");
    assert_eq!(redact(&once.text).text, once.text);
}

#[test]
fn log2_agrees_with_libm() {
    let mut x = 1e-6;
    while x < 1e6 {
        assert!((log2(x) - x.log2()).abs() < 1e-12, "log2({x})");
        x *= 1.37;
    }
    for n in 1..=4096u32 {
        let p = 1.0 / f64::from(n);
        assert!((log2(p) - p.log2()).abs() < 1e-12, "log2(1/{n})");
    }
    assert_eq!(log2(0.125), -3.0);
}

#[test]
fn entropy() {
    assert!(shannon_entropy("aaaaaaaa") < 0.01);
    assert!((shannon_entropy("abcdefgh") - 3.0).abs() < 1e-9);
}

#[test]
fn names_that_merely_contain_a_key_word_stay() {
    for text in [
        "tokenizer: GPT2TokenizerFast",
        "secretary: JaneDoe1985",
        "pip install sk-learn-compatible-estimator-v2",
        "the author: Marta2019x",
    ] {
        assert_eq!(redact(text).text, text, "{text}");
    }
}

#[test]
fn basic_auth_header_and_curl_user() {
    let r = redact("Authorization: Basic YWRtaW46czNjcjN0UDRzcw==");
    assert_eq!(r.text, "Authorization: Basic [REDACTED:basic-auth]");
    let r = redact("curl -u deploy:Hq7!vP2mZ9 https://repo.internal/upload");
    assert_eq!(
        r.text,
        "curl -u deploy:[REDACTED:basic-auth] https://repo.internal/upload"
    );
}

#[test]
fn suffixed_key_names_still_count() {
    let r = redact("SECRET_KEY_BASE=9fT2kLq8Zx4Rw1Vb7Nm3 and apiKeyValue: 'Pq9Zt4Wx2Lm7Rk1V'");
    assert_eq!(r.counts.get("generic-secret"), Some(&2), "{}", r.text);
}
