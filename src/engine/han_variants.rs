//! Traditional Chinese read as Simplified by Layer 1. The detectors' Chinese
//! keywords and patterns are written in Simplified characters; a turn end
//! written in Traditional ones ("日文那邊我先用英文字串佔位了") would hit none
//! of them, and a script with no keywords is a script with no guard. So the
//! text of a turn end is read with each Traditional character replaced by its
//! Simplified form, one character for one (`han_variants/table.txt`, from
//! OpenCC's t2s tables). Japanese keeps its kanji: a text with kana is left
//! as it is, as is any text with no Traditional character.

use std::borrow::Cow;
use std::sync::OnceLock;

const TABLE: &str = include_str!("han_variants/table.txt");

/// `(traditional, simplified)`, sorted by the traditional character.
fn pairs() -> &'static [(char, char)] {
    static PAIRS: OnceLock<Vec<(char, char)>> = OnceLock::new();
    PAIRS.get_or_init(|| {
        let mut lines = TABLE.lines().filter(|l| !l.starts_with('#'));
        let (traditional, simplified) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
        let mut pairs: Vec<(char, char)> = traditional.chars().zip(simplified.chars()).collect();
        pairs.sort_unstable();
        pairs
    })
}

fn simplified(c: char) -> Option<char> {
    if !('\u{4E00}'..='\u{9FFF}').contains(&c) {
        return None;
    }
    let pairs = pairs();
    pairs
        .binary_search_by_key(&c, |p| p.0)
        .ok()
        .map(|i| pairs[i].1)
}

/// `text` with its Traditional Chinese characters in their Simplified forms;
/// unchanged when it has kana (Japanese) or no Traditional character.
pub fn simplify(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let mut traditional = false;
    for c in text.chars() {
        if ('\u{3040}'..='\u{30FF}').contains(&c) {
            return Cow::Borrowed(text); // kana: Japanese
        }
        traditional |= simplified(c).is_some();
    }
    if !traditional {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| simplified(c).unwrap_or(c)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traditional_chinese_is_read_in_simplified_characters() {
        assert_eq!(
            simplify("日文那邊我先用英文字串佔位了，等之後再補上"),
            "日文那边我先用英文字串占位了，等之后再补上"
        );
        // Simplified text, Japanese (kana) and ASCII stay as they are.
        for same in [
            "我先用英文占位了",
            "後で対応します。問題ありません",
            "fixed the bug",
        ] {
            assert!(matches!(simplify(same), Cow::Borrowed(_)), "{same}");
        }
    }

    #[test]
    fn the_table_pairs_every_character() {
        let mut lines = TABLE.lines().filter(|l| !l.starts_with('#'));
        let (t, s) = (lines.next().unwrap(), lines.next().unwrap());
        assert_eq!(t.chars().count(), s.chars().count());
        assert!(pairs().len() > 3000);
    }
}
