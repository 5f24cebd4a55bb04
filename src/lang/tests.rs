//! Language of hand-written texts in 28 languages and of real blocks.

use super::{detect, detect_text};
use crate::blocks::{ParseLimits, Tokenizer};

/// The bundled samples: (ISO 639-1 code, text).
fn samples() -> Vec<(String, String)> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lang-samples.tsv");
    std::fs::read_to_string(path)
        .expect("samples")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (code, text) = l.split_once('\t').expect("code<TAB>text");
            (code.to_owned(), text.to_owned())
        })
        .collect()
}

#[test]
fn short_texts_in_28_languages() {
    let samples = samples();
    let languages: std::collections::BTreeSet<&str> =
        samples.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!((samples.len(), languages.len()), (56, 28));
    let wrong: Vec<String> = samples
        .iter()
        .filter_map(|(code, text)| {
            let got = detect_text(text).map(|l| l.code);
            (got.as_deref() != Some(code)).then(|| format!("{code} as {got:?}: {text}"))
        })
        .collect();
    // Measured: one miss, a two-sentence Danish text read as Norwegian (Bokmål).
    assert!(wrong.len() <= 1, "{wrong:#?}");
}

#[test]
fn code_is_not_read_and_nothing_gives_none() {
    let html = "<p>Die Funktion gibt den Wert zurück, wenn die Bedingung erfüllt ist, und sonst \
                einen Fehler.</p><pre>fn main() { let value = compute(); println!(\"{value}\"); \
                return the value if it is ok and otherwise an error for the caller }</pre>";
    let blocks = Tokenizer::new(ParseLimits::default())
        .blocks(html.as_bytes())
        .expect("blocks");
    let lang = detect(&blocks).expect("a language");
    assert_eq!(lang.code, "de");
    assert!(lang.confidence > 0.0 && lang.confidence <= 1.0, "{lang:?}");
    assert_eq!(detect(&blocks[1..]), None, "code only");
    assert_eq!(detect([]), None);
}

#[test]
fn english_prose_is_told_by_its_function_words_and_agrees_with_whatlang() {
    let english = "The function returns the value of the field if it is set, and an error that \
                   names the field when it is not.";
    assert!(super::is_english_prose(english));
    assert_eq!(
        whatlang::detect(english).map(|i| i.lang()),
        Some(whatlang::Lang::Eng)
    );
    // Too few words, or too few function words: whatlang decides.
    assert!(!super::is_english_prose("The end of it."));
    assert!(!super::is_english_prose(
        "Die Stadt hat in der Woche was an die Presse gegeben, und alle waren sehr zufrieden."
    ));
    for (code, text) in samples() {
        assert!(!super::is_english_prose(&text), "{code}: {text}");
    }
}
