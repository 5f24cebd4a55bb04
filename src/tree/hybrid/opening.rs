//! A thread's opening post: a question and its answers, a topic and its replies. Many forums
//! set the post that opens the thread apart from the run of replies under it, in an element of
//! its own: Stack Exchange's `div.question` beside `div#answers`, which holds the answers;
//! Invision's first post above the replies. The main subtree anchors on the densest text, the
//! run of replies, and the question above it lies outside; [`super::units`] widens the main
//! text to the run's units, and the opening post is no unit of that run. Read by its place: on
//! a page that is a thread (it declares one, in JSON-LD, `og:type` or a microdata item, or its
//! units were read as posts), the blocks between the page's title and its first kept block after
//! it that only their place outside the main subtree dropped are the thread's opening post,
//! when they hold a paragraph ([`PARAGRAPH`]): what opens a thread is the question its replies
//! answer. What the markup marks (comments under the question), what is hidden, made of links
//! or repeated on the node's other pages stays dropped.

use super::units::{own_chars, own_page, PARAGRAPH, PHRASE};
use crate::tree::{BlockFacts, Label, Reason};

/// Keeps the blocks of a thread's opening post: those between the page's title (the last
/// block kept as [`Reason::Title`] before the first other kept block; the page's start where
/// there is none) and the first other kept block, that were dropped as outside the main subtree
/// and that the tree has counted on this page alone, when their own text in phrases of at least
/// [`PHRASE`] characters holds a paragraph. The caller judges whether the page is a thread.
pub fn keep_opening_post(blocks: &[BlockFacts<'_>], out: &mut [Reason]) {
    let Some(first) =
        (0..blocks.len()).find(|&k| out[k].label() == Label::Content && out[k] != Reason::Title)
    else {
        return;
    };
    let start = (0..first)
        .rev()
        .find(|&k| out[k] == Reason::Title)
        .map_or(0, |title| title + 1);
    let post: Vec<usize> = (start..first)
        .filter(|&k| out[k] == Reason::OutsideMainSubtree && own_page(&blocks[k]))
        .collect();
    let text: u64 = post
        .iter()
        .map(|&k| own_chars(&blocks[k]))
        .filter(|&c| c >= u64::from(PHRASE))
        .sum();
    if text >= u64::from(PARAGRAPH) {
        for k in post {
            out[k] = Reason::Unit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{assert_rule_pays_by, judge_page};
    use super::super::Rules;

    /// A Q&A page laid out as Stack Exchange lays it out: the question, its tags, menu, cards
    /// and comments in an element of their own beside the element holding the run of answers;
    /// `itemtype` declares the thread or not.
    fn qa_page(itemtype: &str) -> String {
        let answer = |n: u32| {
            format!(
                "<div class=\"answer\"><div class=\"post-layout\"><div class=\"votecell\">{}</div>\
                 <div class=\"answercell\"><div class=\"s-prose\"><p>Answer {n}: keep the spare \
                 sourdough starter in the refrigerator between bakes and feed it once a week with \
                 equal weights of flour and water, so that it stays active without needing daily \
                 attention.</p><p>Before baking, take it out the evening before and give it two \
                 feedings at room temperature; a starter that doubles within six hours is ready \
                 to leaven a loaf again.</p></div><div class=\"user-info\">answered by \
                 <a href=\"/u/{n}\">baker {n}</a></div></div></div></div>",
                n + 3
            )
        };
        let comment = |n: u32| {
            format!(
                "<li class=\"comment\"><span>Comment {n}: have you tried drying some of it?</span> \
                 <a href=\"/u/{}\">reader {n}</a> <span>Mar {n}</span></li>",
                n + 20
            )
        };
        format!(
            "<html><body{itemtype}><header><a href=\"/\">Seasoned Advice</a></header>\
             <div id=\"content\"><div id=\"question-header\"><h1>How do I keep a sourdough \
             starter alive between bakes?</h1></div><div class=\"info\"><span>Asked 3 years \
             ago</span> <span>Viewed 2k times</span></div><div id=\"mainbar\">\
             <div class=\"question\"><div class=\"post-layout\"><div class=\"votecell\">11</div>\
             <div class=\"postcell\"><div class=\"s-prose\"><p>I bake bread about once a month, \
             and my starter keeps dying in the weeks between bakes.</p><p>What is the least \
             effort way to keep it alive without feeding it every day?</p></div>\
             <ul class=\"taglist\"><li><a href=\"/t/bread\">bread</a></li><li>\
             <a href=\"/t/sourdough\">sourdough</a></li><li><a href=\"/t/storage\">storage</a>\
             </li></ul><div class=\"menu\"><a href=\"/q/1\">Share</a> <a href=\"/e/1\">Improve \
             this question</a> <a href=\"/f/1\">Follow</a></div><div class=\"user-card\">\
             <a href=\"/r/1\">edited Mar 2 at 9:14</a> <a href=\"/u/9\">an editor</a></div>\
             <div class=\"user-card\"><div>asked Mar 1 at 20:03</div><a href=\"/u/7\">a monthly \
             baker</a><div>1,204 silver badges</div></div></div><div class=\"comments\"><ul>\
             {}{}{}</ul><a href=\"#c\">Add a comment</a></div></div></div><div id=\"answers\">\
             <h2>3 Answers</h2>{}{}{}</div></div></div><footer><p>Site design and logo are \
             licensed under their terms.</p></footer></body></html>",
            comment(1),
            comment(2),
            comment(3),
            answer(1),
            answer(2),
            answer(3)
        )
    }

    #[test]
    fn a_threads_question_set_apart_from_its_answers_is_kept() {
        let declared = qa_page(" itemscope itemtype=\"https://schema.org/QAPage\"");
        let kept = judge_page(&declared, Rules::default()).join("\n");
        assert!(kept.contains("my starter keeps dying"), "{kept}");
        assert!(kept.contains("least effort way"), "{kept}");
        assert!(kept.contains("Answer 3: keep the spare"), "{kept}");
        assert!(!kept.contains("licensed under"), "{kept}");
        assert!(!kept.contains("Comment 2"), "{kept}");
        // Switched off, the main subtree holds the answers alone.
        let off = Rules {
            opening_post: false,
            ..Rules::default()
        };
        let without = judge_page(&declared, off).join("\n");
        assert!(!without.contains("my starter keeps dying"), "{without}");
        // A page that says nothing of being a thread and whose answers are not read as posts
        // keeps what its main subtree holds.
        let plain = judge_page(&qa_page(""), Rules::default()).join("\n");
        assert_eq!(plain, without);
    }

    #[test]
    fn real_threads_keep_their_opening_post() {
        // Two Stack Exchange questions, a microdata `QAPage` each, and Squarespace's forum
        // topic, whose replies are read as posts: judged as the engine judges them, with what
        // they declare.
        let urls = [
            "https://cooking.stackexchange.com/questions/12068/catering-event-for-1st-time-how-should-i-prepare",
            "https://superuser.com/questions/1110045/windows-10-wsl-bash-and-mintty",
            "https://forum.squarespace.com/topic/319445-squarespace-roadmap-discussion/",
        ];
        assert_rule_pays_by(&urls, "opening_post", 0.03, judge_page);
    }
}
