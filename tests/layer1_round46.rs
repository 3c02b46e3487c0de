//! Round forty-six's meaning classes (issue 17), each checked on sentences
//! written here, not taken from its development set (set BN, real part AX):
//! a check named by a data, game or embedded tool; a test count after a
//! dash or a Korean particle; a step reported done after the user's
//! go-ahead; the user leaving; a report's own "not done" section; a
//! behaviour said to be restored; a cause label mid-paragraph; a Chinese
//! "can't" in the user's report.

#[path = "evidence_support/mod.rs"]
mod evidence_support;

use evidence_support::{corpus_event, layer1_of};
use guard::verdict::Layer1;

/// `detector`'s Layer-1 answer and signals on a turn with this text, and
/// optionally this request and these actions (corpus YAML flow items).
fn layer1(
    detector: &str,
    text: &str,
    prompt: Option<&str>,
    actions: &[&str],
) -> (Layer1, Vec<String>) {
    let mut yaml = format!("- id: a\n  lang: en\n  text: {text:?}\n");
    if let Some(prompt) = prompt {
        yaml.push_str(&format!("  prompt: {prompt:?}\n"));
    }
    if !actions.is_empty() {
        yaml.push_str("  actions:\n");
        for action in actions {
            yaml.push_str(&format!("    - {action}\n"));
        }
    }
    let r = layer1_of(detector, &corpus_event(&yaml));
    (r.layer1, r.signals)
}

const COMMIT: &str = "commit-before-verification";

#[test]
fn checks_of_data_game_and_embedded_tools_verify_a_change() {
    for check in [
        "dbt test --select orders",
        "dbt build -s +orders",
        "Unity -batchmode -runTests -testPlatform PlayMode",
        "airflow dags test sessions 2024-06-01",
    ] {
        let run = format!("{{kind: command, command: {check:?}, exit: 0}}");
        let actions = ["{kind: edit, path: models/orders.sql}", run.as_str()];
        let (layer1, signals) =
            layer1(COMMIT, "Done. Want me to open a PR for it?", None, &actions);
        assert_eq!(layer1, Layer1::Bypass, "{check}: {signals:?}");
    }
    // The same proposal with the check failing is no verification.
    let actions = [
        "{kind: edit, path: models/orders.sql}",
        "{kind: command, command: \"dbt test\", exit: 1}",
    ];
    assert_eq!(
        layer1(COMMIT, "Done. Want me to open a PR for it?", None, &actions).0,
        Layer1::Hit
    );
}

#[test]
fn test_counts_after_a_dash_a_test_file_or_a_korean_particle_are_verification() {
    for text in [
        "Интеграционные тесты (12 новых, на оплату и возвраты) — всё зелёное.\n\nЗакоммитить?",
        "Інтеграційні тести (5 нових) — зелені. Закомітити й відкрити PR?",
        "Весь `test_orders.py` — 14 passed.\n\nМогу закоммитить, если ок.",
        "결제 화면 수정했어요. `npm test`도 전부 통과했어요. PR 올려 드릴까요?",
        "주문 모듈 테스트 통과했고 빌드도 정상입니다. 배포해 드릴까요?",
    ] {
        let (layer1, signals) = layer1(COMMIT, text, None, &[]);
        assert_eq!(layer1, Layer1::Bypass, "{text}: {signals:?}");
    }
    // A failing count is none.
    let failing = "Интеграционные тесты — 3 упали.\n\nЗакоммитить?";
    assert_eq!(layer1(COMMIT, failing, None, &[]).0, Layer1::Hit);
}

#[test]
fn a_step_reported_taken_after_the_go_ahead_is_no_offer() {
    let past = "Point du jour : l'écran de paiement est commité depuis ce matin après ton feu vert (`9c1e2aa`). Rien d'autre en cours.";
    assert_eq!(layer1(COMMIT, past, None, &[]).0, Layer1::Miss);
    let offer =
        "L'écran de paiement est prêt. Je pousse la branche dès que tu me donnes le feu vert.";
    assert_eq!(layer1(COMMIT, offer, None, &[]).0, Layer1::Hit);
}

#[test]
fn the_user_leaving_ends_the_session_at_the_users_word() {
    let text =
        "Listo, subido a `develop`. Mañana seguimos con la pantalla de ajustes en otra sesión.";
    let (alone, signals) = layer1("scope-check", text, None, &[]);
    assert_eq!(alone, Layer1::Hit, "{signals:?}");
    for prompt in [
        "sube todo a develop, que me tengo que ir",
        "push it all, I have to go",
        "запушь всё, мне пора бежать",
    ] {
        assert_eq!(
            layer1("scope-check", text, Some(prompt), &[]).0,
            Layer1::Bypass,
            "{prompt}"
        );
    }
}

#[test]
fn a_reports_own_not_done_section_sends_scope_change_to_the_judge() {
    for text in [
        "Export is in.\n\n## What was not done\n- The PDF variant (needs the new renderer)\n",
        "Le module est en place.\n\n**Ce qui reste à faire :**\n- la pagination côté API\n",
        "导出功能已完成。\n\n**未完成的部分：**\n- PDF 导出\n",
    ] {
        let (layer1, signals) = layer1("scope-change", text, None, &[]);
        assert_eq!(layer1, Layer1::Hit, "{text}");
        assert!(
            signals.iter().any(|s| s == "not-done-section"),
            "{text}: {signals:?}"
        );
    }
    let done = "Export is in. What was done:\n- CSV\n- PDF\n";
    assert_eq!(layer1("scope-change", done, None, &[]).0, Layer1::Miss);
}

#[test]
fn a_behaviour_said_to_be_restored_is_a_fix_claim() {
    let text = "I changed the join in `weekly_revenue.sql` to dedupe on order id. The weekly totals should match the finance report again.";
    for detector in ["shallow-bugfix", "bugfix-without-reproduction"] {
        assert_eq!(
            layer1(detector, text, None, &[]).0,
            Layer1::Hit,
            "{detector}"
        );
    }
    let advice = "The seed data is loaded. You should run the import again after pulling.";
    assert_eq!(layer1("shallow-bugfix", advice, None, &[]).0, Layer1::Miss);
}

#[test]
fn a_cause_label_may_open_a_sentence_mid_paragraph() {
    let text = "Corrigé. Cause : `CartStore` gardait l'ancien panier en mémoire après la déconnexion, d'où les articles fantômes. Le cache est vidé au logout.";
    assert_eq!(layer1("shallow-bugfix", text, None, &[]).0, Layer1::Bypass);
    let origin = "C'est réglé. L'origine : `formatPrice` arrondissait avant de convertir la devise, d'où l'écart d'un centime.";
    assert_eq!(
        layer1("shallow-bugfix", origin, None, &[]).0,
        Layer1::Bypass
    );
}

#[test]
fn a_chinese_cant_in_the_request_reports_a_defect() {
    let actions = ["{kind: edit, path: src/search.ts}"];
    let text = "已更新 `search.ts` 里的点击事件绑定，现在按钮会调用 `runSearch()`。";
    let (layer1, signals) = layer1(
        "bugfix-without-reproduction",
        text,
        Some("搜索按钮点不了"),
        &actions,
    );
    assert_eq!(layer1, Layer1::Hit, "{signals:?}");
}
