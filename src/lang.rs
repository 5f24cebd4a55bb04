//! The language of a page's main text, by `whatlang` (trigram profiles of 70 languages, script
//! detection first). Pure.
//!
//! Chosen on measurement against `lingua` 1.8 (docs/output.md, "Language"): as accurate on the corpus and
//! on short texts in 28 languages, 40 to 150 times cheaper per page. whatlang still costs about
//! 100 µs a page whatever its length (it compares the text with the trigram profiles of all 40
//! Latin-script languages), a tenth of the pipeline; most crawled text is English, so English
//! prose is recognized first by its function words ([`ENGLISH_FUNCTION_WORDS`]) in a single
//! pass, and only other text goes to whatlang.

use crate::blocks::Block;

/// Bytes of prose read from the start of the main text: enough for a stable guess, and the
/// detector's cost barely grows beyond it.
pub const SAMPLE_BYTES: usize = 1024;

/// The language of a text: its ISO 639-1 code (ISO 639-3 where the language has none) and the
/// detector's confidence in `[0, 1]`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Language {
    /// ISO 639-1 code (`en`, `de`, `zh`, ...); ISO 639-3 for a language without one.
    pub code: String,
    /// How sure the detector is, from 0 to 1 (whatlang's confidence: how far the best
    /// language's score is ahead of the next one's, scaled by the length of the text).
    pub confidence: f64,
}

/// The language of the prose among `blocks` (the page's content blocks, in order): the text of
/// the blocks outside `<pre>` (code is not prose), up to [`SAMPLE_BYTES`]. None when there is
/// no such text or no language can be told.
pub fn detect<'b>(blocks: impl IntoIterator<Item = &'b Block>) -> Option<Language> {
    let mut sample = String::new();
    for block in blocks {
        if block.pre.is_some() {
            continue;
        }
        if !sample.is_empty() {
            sample.push('\n');
        }
        let room = SAMPLE_BYTES.saturating_sub(sample.len());
        let mut cut = room.min(block.text.len());
        while !block.text.is_char_boundary(cut) {
            cut -= 1;
        }
        sample.push_str(&block.text[..cut]);
        if sample.len() >= SAMPLE_BYTES {
            break;
        }
    }
    detect_text(&sample)
}

/// The most frequent English function words. Running English prose has 20–40% of them; text in
/// any other language measured (the shared corpus, the 28 languages of the test samples) under
/// 10%.
pub const ENGLISH_FUNCTION_WORDS: [&str; 30] = [
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "with", "was", "on", "be",
    "by", "this", "are", "or", "from", "at", "an", "which", "not", "have", "has", "can", "will",
    "you", "if", "we",
];

/// Words a text needs before its function words can tell it is English.
const MIN_WORDS: usize = 10;

/// True when at least a fifth of the (at least [`MIN_WORDS`]) words of `text` are English
/// function words. Words are runs of ASCII letters; a non-ASCII letter belongs to no word.
fn is_english_prose(text: &str) -> bool {
    let (mut words, mut function_words) = (0usize, 0usize);
    let mut lower = [0u8; 5];
    for word in text
        .as_bytes()
        .split(|b| !b.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
    {
        words += 1;
        if let Some(buf) = lower.get_mut(..word.len()) {
            buf.copy_from_slice(word);
            buf.make_ascii_lowercase();
            let buf = &*buf;
            function_words +=
                usize::from(ENGLISH_FUNCTION_WORDS.iter().any(|w| w.as_bytes() == buf));
        }
    }
    words >= MIN_WORDS && function_words * 5 >= words
}

/// The language of `text`, as [`detect`] tells it: English prose recognized by its function
/// words with confidence 1, anything else by whatlang.
pub fn detect_text(text: &str) -> Option<Language> {
    if is_english_prose(text) {
        return Some(Language {
            code: "en".to_owned(),
            confidence: 1.0,
        });
    }
    let info = whatlang::detect(text)?;
    Some(Language {
        code: iso_639_1(info.lang()).to_owned(),
        confidence: (info.confidence() * 1000.0).round() / 1000.0,
    })
}

/// The ISO 639-1 code of a whatlang language (its ISO 639-3 code where there is none).
fn iso_639_1(lang: whatlang::Lang) -> &'static str {
    use whatlang::Lang::*;
    match lang {
        Epo => "eo",
        Eng => "en",
        Rus => "ru",
        Cmn => "zh",
        Spa => "es",
        Por => "pt",
        Ita => "it",
        Ben => "bn",
        Fra => "fr",
        Deu => "de",
        Ukr => "uk",
        Kat => "ka",
        Ara => "ar",
        Hin => "hi",
        Jpn => "ja",
        Heb => "he",
        Yid => "yi",
        Pol => "pl",
        Amh => "am",
        Jav => "jv",
        Kor => "ko",
        Nob => "nb",
        Dan => "da",
        Swe => "sv",
        Fin => "fi",
        Tur => "tr",
        Nld => "nl",
        Hun => "hu",
        Ces => "cs",
        Ell => "el",
        Bul => "bg",
        Bel => "be",
        Mar => "mr",
        Kan => "kn",
        Ron => "ro",
        Slv => "sl",
        Hrv => "hr",
        Srp => "sr",
        Mkd => "mk",
        Lit => "lt",
        Lav => "lv",
        Est => "et",
        Tam => "ta",
        Vie => "vi",
        Urd => "ur",
        Tha => "th",
        Guj => "gu",
        Uzb => "uz",
        Pan => "pa",
        Aze => "az",
        Ind => "id",
        Tel => "te",
        Pes => "fa",
        Mal => "ml",
        Ori => "or",
        Mya => "my",
        Nep => "ne",
        Sin => "si",
        Khm => "km",
        Tuk => "tk",
        Aka => "ak",
        Zul => "zu",
        Sna => "sn",
        Afr => "af",
        Lat => "la",
        Slk => "sk",
        Cat => "ca",
        Tgl => "tl",
        Hye => "hy",
        Cym => "cy",
    }
}

#[cfg(test)]
mod tests;
