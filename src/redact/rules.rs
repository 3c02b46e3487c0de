//! The table of secret formats that [`super::redact`] knows.
//!
//! Each rule is a placeholder type, the keywords that must occur in the text
//! before its regex is worth running (matched case-insensitively by one
//! aho-corasick pass), and the regex itself. Specific formats come first: when
//! two rules match the same span, the earlier rule names the placeholder.

/// How a rule's candidate is vetted after the regex matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Check {
    /// A vendor format with a distinctive prefix: only placeholders are skipped.
    Prefixed,
    /// A vendor format that must also hold a digit (keeps hyphenated words out).
    PrefixedWithDigit,
    /// A value found by its key name (`password=`, `token:`): it must also look
    /// random (entropy floor, several character classes).
    Generic,
}

/// One secret format.
#[derive(Debug)]
pub(crate) struct SecretRule {
    /// The placeholder type, as in `[REDACTED:github-token]`.
    pub kind: &'static str,
    /// Case-insensitive keywords; the regex runs only when one occurs.
    pub keywords: &'static [&'static str],
    /// The regex. When it has a capture group named `secret` (or `secret2`,
    /// for a second alternative), only that group is replaced; otherwise the
    /// whole match is.
    pub pattern: &'static str,
    /// How a candidate is vetted.
    pub check: Check,
}

/// Key names that announce a secret value in an assignment.
#[cfg(test)]
const GENERIC_KEY: &str = r"(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?key|signing[_-]?key|session[_-]?key)";

/// The rules, most specific first.
pub(crate) static RULES: &[SecretRule] = &[
    SecretRule {
        kind: "private-key",
        keywords: &["-----begin"],
        pattern: r"(?s)-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "anthropic-key",
        keywords: &["sk-ant-"],
        pattern: r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "openai-key",
        keywords: &["sk-"],
        pattern: r"\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9]{20,})",
        check: Check::PrefixedWithDigit,
    },
    SecretRule {
        kind: "github-token",
        keywords: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        pattern: r"\b(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "gitlab-token",
        keywords: &["glpat-", "gldt-", "glptt-", "glrt-"],
        pattern: r"\b(?:glpat|gldt|glptt|glrt)-[A-Za-z0-9_\-]{20,}",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "aws-access-key",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        pattern: r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b",
        check: Check::PrefixedWithDigit,
    },
    SecretRule {
        kind: "aws-secret-key",
        keywords: &[
            "aws_secret",
            "aws-secret",
            "secretaccesskey",
            "secret_access_key",
        ],
        pattern: r#"(?i)(?:aws_?secret_?access_?key|aws-secret-access-key|secretaccesskey)["']?\s*[:=]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "slack-webhook",
        keywords: &["hooks.slack.com"],
        pattern: r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/\-]+",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "slack-token",
        keywords: &["xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxr-", "xoxs-", "xoxe"],
        pattern: r"\bxox(?:[abposr]|e(?:\.xox[bp])?)-[A-Za-z0-9\-]{10,}",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "discord-webhook",
        keywords: &["discord.com/api/webhooks", "discordapp.com/api/webhooks"],
        pattern: r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_\-]+",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "stripe-key",
        keywords: &["sk_live_", "rk_live_", "sk_test_", "rk_test_", "whsec_"],
        pattern: r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "google-api-key",
        keywords: &["aiza"],
        pattern: r"\bAIza[0-9A-Za-z_\-]{35}",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "jwt",
        keywords: &["eyj"],
        pattern: r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "npm-token",
        keywords: &["npm_"],
        pattern: r"\bnpm_[A-Za-z0-9]{36}\b",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "huggingface-token",
        keywords: &["hf_"],
        pattern: r"\bhf_[A-Za-z0-9]{30,}\b",
        check: Check::PrefixedWithDigit,
    },
    SecretRule {
        kind: "pypi-token",
        keywords: &["pypi-"],
        pattern: r"\bpypi-AgE[A-Za-z0-9_\-]{50,}",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "sendgrid-key",
        keywords: &["sg."],
        pattern: r"\bSG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}\b",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "digitalocean-token",
        keywords: &["dop_v1_", "doo_v1_", "dor_v1_"],
        pattern: r"\bdo[por]_v1_[a-f0-9]{64}\b",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "shopify-token",
        keywords: &["shpat_", "shpss_", "shpca_", "shppa_"],
        pattern: r"\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "url-credentials",
        keywords: &["://"],
        pattern: r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s:/@\[\]]{1,100}:(?P<secret>[^\s@/\[\]]{3,200})@[A-Za-z0-9.\-\[]",
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "basic-auth",
        keywords: &["basic ", "-u ", "--user"],
        pattern: r#"(?i)(?:\bauthorization["']?\s*[:=]\s*["']?basic\s+(?P<secret>[A-Za-z0-9+/]{8,}={0,2})|\bcurl\b[^\n]*?\s(?:-u|--user)[\s=]+["']?[^\s:"']+:(?P<secret2>[^\s"']{4,}))"#,
        check: Check::Prefixed,
    },
    SecretRule {
        kind: "bearer-token",
        keywords: &["bearer"],
        pattern: r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/\-]{20,}=*)",
        check: Check::Generic,
    },
    SecretRule {
        kind: "generic-secret",
        keywords: &[
            "password",
            "passwd",
            "passphrase",
            "pwd",
            "secret",
            "token",
            "api_key",
            "api-key",
            "apikey",
            "access_key",
            "access-key",
            "accesskey",
            "private_key",
            "private-key",
            "privatekey",
            "credential",
            "auth_key",
            "authkey",
            "signing",
            "session_key",
            "sessionkey",
        ],
        // A key holding one of the key words, an optional closing quote, `=` or
        // `:`, an optional opening quote, then the value. A value starting with
        // `$`, `<`, `{`, `%` or `[` (a reference or a placeholder) does not match.
        pattern: GENERIC_PATTERN,
        check: Check::Generic,
    },
];

/// The pattern of the generic assignment rule; it embeds [`GENERIC_KEY`] (a
/// test checks the two agree).
const GENERIC_PATTERN: &str = r#"(?i)\b[A-Za-z0-9_.\-]*(?:password|passwd|passphrase|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credentials?|auth[_-]?key|signing[_-]?key|session[_-]?key)(?:[_.\-]?(?:key|value|token|secret|base|b64|base64|hex|str|string))*s?["']?\s*(?::=|=>|=|:)\s*["']?(?P<secret>[A-Za-z0-9][A-Za-z0-9_\-+/=.!@#%^*~?&]{7,})"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generic_pattern_uses_the_key_list() {
        assert!(GENERIC_PATTERN.contains(GENERIC_KEY));
    }

    #[test]
    fn every_rule_compiles_and_has_lowercase_keywords() {
        for rule in RULES {
            assert!(regex::Regex::new(rule.pattern).is_ok(), "{}", rule.kind);
            assert!(!rule.keywords.is_empty(), "{}", rule.kind);
            for k in rule.keywords {
                assert_eq!(*k, k.to_lowercase(), "{}", rule.kind);
            }
        }
    }
}
