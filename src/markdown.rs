//! Markdown rendering of a page's content blocks (CommonMark with GitHub's pipe tables): headings
//! as `#`, list items, fenced code blocks with their white space, block quotes, data tables as
//! pipe tables, inline code as code spans. Pure.
//!
//! The rendering works from the kept blocks alone, not from a DOM: the classifier decides per
//! block, and each block carries what the structure needs, the element path of its container
//! with the document-order ordinals of those elements (which `<li>`, `<tr>`, `<td>`, `<pre>` it
//! is in), its code spans and, inside `<pre>`, its white space. A dropped block simply is not
//! there: a list whose navigation items were dropped keeps its content items, a table keeps its
//! kept cells.
//!
//! Rules:
//! - a block inside `<h1>`–`<h6>` is a heading of that level;
//! - a block inside `<li>` is a list item (`- `, or `N. ` in an `<ol>`, numbered by the kept
//!   items), its later blocks are paragraphs of the item; nested lists are indented under
//!   their item when that item has been rendered, else they take its place;
//! - `<blockquote>` prefixes `> ` per level;
//! - the blocks of one `<pre>` form one fenced code block, lines and indentation as written,
//!   with the code's language as the info string when the markup names it
//!   (`class="language-rust"`);
//! - consecutive blocks in the cells of one table form a pipe table (its first row is the
//!   header) when the table holds data: at least two and at most 32 columns in a row, at most
//!   three blocks per cell and no headings, lists, quotes, code blocks or tables inside a cell.
//!   Anything else is a layout table, and its blocks render as if it were not there;
//! - at most six quote and list levels are rendered (the innermost ones), so no page makes every
//!   line's prefix long;
//! - every other block is a paragraph. Text is escaped where Markdown would read it as markup.

use std::collections::HashMap;

use crate::blocks::Block;

/// Renders `blocks`, the content blocks of one page in document order, as Markdown: blocks are
/// separated by a blank line (list items of one list by a line break), the result has no
/// trailing line break, and the empty input gives the empty string.
pub fn render<'b>(blocks: impl IntoIterator<Item = &'b Block>) -> String {
    let items: Vec<(&Block, Shape)> = blocks.into_iter().map(|b| (b, Shape::of(b))).collect();
    let mut out = Renderer::default();
    // Blocks before this index are in a layout table already judged.
    let mut layout_until = 0;
    let mut i = 0;
    while i < items.len() {
        let (block, shape) = &items[i];
        if let Some(cell) = shape.cell.filter(|_| i >= layout_until) {
            let end = group_end(&items, i, |(_, s)| {
                s.cell.is_some_and(|c| c.table == cell.table)
            });
            if is_data_table(&items[i..end]) {
                out.table(&items[i..end]);
                i = end;
                continue;
            }
            layout_until = end;
        }
        if let Some(pre) = block.pre {
            let end = group_end(&items, i, |(b, _)| b.pre == Some(pre));
            out.code_block(&items[i..end]);
            i = end;
            continue;
        }
        out.paragraph(block, shape);
        i += 1;
    }
    out.out
}

/// End of the run of items from `start` on that satisfy `same` (at least `start + 1`).
fn group_end<'b>(
    items: &[(&'b Block, Shape)],
    start: usize,
    same: impl Fn(&(&'b Block, Shape)) -> bool,
) -> usize {
    start + 1 + items[start + 1..].iter().take_while(|i| same(i)).count()
}

/// A container that prefixes a block's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Nest {
    /// `<blockquote>`.
    Quote,
    /// `<li>` (its ordinal), in the list with this ordinal, ordered or not.
    Item {
        li: u32,
        list: Option<u32>,
        ordered: bool,
    },
}

/// A table cell: the ordinals of its table, row and cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cell {
    table: u32,
    row: Option<u32>,
    cell: u32,
    /// Something inside the cell (a heading, list, quote, code block, table) makes it a layout
    /// cell.
    complex: bool,
}

/// What a block's element path says of its place in the page's structure.
#[derive(Debug, Default)]
struct Shape {
    heading: Option<usize>,
    nest: Vec<Nest>,
    cell: Option<Cell>,
}

impl Shape {
    fn of(block: &Block) -> Shape {
        let mut shape = Shape::default();
        if block.path.is_empty() {
            return shape;
        }
        let segments = block.path.split('/').count();
        // `ancestors` holds the ordinals of the innermost segments.
        let offset = segments.saturating_sub(block.ancestors.len());
        let ordinal = |i: usize| {
            i.checked_sub(offset)
                .and_then(|k| block.ancestors.get(k))
                .copied()
        };
        let mut list: Option<(Option<u32>, bool)> = None;
        let (mut table, mut row) = (None, None);
        for (i, segment) in block.path.split('/').enumerate() {
            let inside_cell = shape.cell.is_some();
            match segment {
                "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                    shape.heading = segment[1..].parse().ok();
                }
                "blockquote" => shape.nest.push(Nest::Quote),
                "ul" | "ol" | "menu" | "dir" => list = Some((ordinal(i), segment == "ol")),
                "li" => {
                    if let Some(li) = ordinal(i) {
                        shape.nest.push(Nest::Item {
                            li,
                            list: list.and_then(|l| l.0),
                            ordered: list.is_some_and(|l| l.1),
                        });
                    }
                }
                "table" => {
                    (table, row) = (ordinal(i), None);
                    if !inside_cell {
                        continue;
                    }
                }
                "tr" => row = ordinal(i),
                "td" | "th" => {
                    shape.cell = match (table, ordinal(i)) {
                        (Some(table), Some(cell)) => Some(Cell {
                            table,
                            row,
                            cell,
                            complex: false,
                        }),
                        _ => None,
                    };
                    continue;
                }
                _ => continue,
            }
            if let Some(cell) = shape.cell.as_mut().filter(|_| inside_cell) {
                cell.complex = true;
            }
        }
        // Deeper nesting is flattened, so a hostile page cannot make every line's prefix long.
        if shape.nest.len() > MAX_NESTING {
            shape.nest.drain(..shape.nest.len() - MAX_NESTING);
        }
        if shape.cell.is_some() && block.pre.is_some() {
            if let Some(cell) = shape.cell.as_mut() {
                cell.complex = true;
            }
        }
        shape
    }
}

/// Cells of a table group, by row in order of appearance.
type Rows<'b> = Vec<(Option<u32>, Vec<(u32, Vec<&'b Block>)>)>;

fn table_rows<'b>(items: &[(&'b Block, Shape)]) -> Rows<'b> {
    let mut rows: Rows<'b> = Vec::new();
    for (block, shape) in items {
        let Some(cell) = shape.cell else { continue };
        if rows.last().is_none_or(|(row, _)| *row != cell.row) {
            rows.push((cell.row, Vec::new()));
        }
        if let Some((_, cells)) = rows.last_mut() {
            match cells.last_mut() {
                Some((ordinal, blocks)) if *ordinal == cell.cell => blocks.push(block),
                _ => cells.push((cell.cell, vec![block])),
            }
        }
    }
    rows
}

/// Most blocks one data-table cell holds.
const MAX_BLOCKS_PER_CELL: usize = 3;

/// Most columns of a data table (a wider one is rendered as its blocks: every row is padded to
/// the widest, so a hostile page could otherwise multiply its size).
const MAX_COLUMNS: usize = 32;

/// Most quote and list levels rendered; deeper ones are flattened into the innermost ones kept.
const MAX_NESTING: usize = 6;

fn is_data_table(items: &[(&Block, Shape)]) -> bool {
    if items
        .iter()
        .any(|(_, s)| s.cell.is_none_or(|c| c.complex) || s.heading.is_some())
    {
        return false;
    }
    let rows = table_rows(items);
    rows.iter().any(|(_, cells)| cells.len() >= 2)
        && rows.iter().all(|(_, cells)| {
            cells.len() <= MAX_COLUMNS
                && cells
                    .iter()
                    .all(|(_, blocks)| blocks.len() <= MAX_BLOCKS_PER_CELL)
        })
}

/// The output and what it has rendered of the page's lists.
#[derive(Default)]
struct Renderer {
    out: String,
    /// Width of the marker of every list item rendered so far, by the `<li>`'s ordinal.
    items: HashMap<u32, usize>,
    /// Items rendered so far per ordered list, by the list's ordinal.
    numbers: HashMap<u32, u32>,
    /// The last unit rendered was inside a list item.
    in_item: bool,
    /// The prefix of the last unit's lines.
    last_prefix: String,
}

/// The prefixes of a unit's first line and of its other lines.
struct Prefix {
    first: String,
    rest: String,
    new_item: bool,
}

impl Renderer {
    /// The prefixes for a unit nested in `nest`; starts the innermost list item when it is new.
    fn prefix(&mut self, nest: &[Nest]) -> Prefix {
        let innermost_item = nest.iter().rposition(|n| matches!(n, Nest::Item { .. }));
        let mut p = Prefix {
            first: String::new(),
            rest: String::new(),
            new_item: false,
        };
        for (i, n) in nest.iter().enumerate() {
            match *n {
                Nest::Quote => {
                    p.first.push_str("> ");
                    p.rest.push_str("> ");
                }
                Nest::Item { li, list, ordered } => {
                    if let Some(&width) = self.items.get(&li) {
                        push_spaces(&mut p.first, width);
                        push_spaces(&mut p.rest, width);
                    } else if Some(i) == innermost_item {
                        let marker = match (ordered, list) {
                            (true, Some(list)) => {
                                let n = self.numbers.entry(list).or_insert(0);
                                *n += 1;
                                format!("{n}. ")
                            }
                            _ => "- ".to_owned(),
                        };
                        self.items.insert(li, marker.len());
                        p.first.push_str(&marker);
                        push_spaces(&mut p.rest, marker.len());
                        p.new_item = true;
                    }
                }
            }
        }
        p
    }

    /// Starts a unit: the separator from the previous one, and the unit's prefixes.
    fn start(&mut self, nest: &[Nest]) -> Prefix {
        let prefix = self.prefix(nest);
        if !self.out.is_empty() {
            self.out.push('\n');
            if !(prefix.new_item && self.in_item) {
                // A blank line, inside the quotes this unit and the last share.
                let common = prefix
                    .rest
                    .bytes()
                    .zip(self.last_prefix.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let quotes = prefix.rest[..common].rfind('>').map_or(0, |q| q + 1);
                self.out.push_str(&prefix.rest[..quotes]);
                self.out.push('\n');
            }
        }
        self.in_item = nest.iter().any(|n| matches!(n, Nest::Item { .. }));
        self.last_prefix.clone_from(&prefix.rest);
        prefix
    }

    fn paragraph(&mut self, block: &Block, shape: &Shape) {
        let prefix = self.start(&shape.nest);
        self.out.push_str(&prefix.first);
        if let Some(level) = shape.heading {
            for _ in 0..level {
                self.out.push('#');
            }
            self.out.push(' ');
        }
        inline(
            &mut self.out,
            &block.text,
            &block.code_spans,
            Escape::LineStart,
        );
    }

    fn code_block(&mut self, items: &[(&Block, Shape)]) {
        let Some((_, shape)) = items.first() else {
            return;
        };
        let prefix = self.start(&shape.nest);
        let longest = items
            .iter()
            .map(|(b, _)| longest_run(&b.text, '`'))
            .max()
            .unwrap_or(0);
        let fence = "`".repeat(longest.max(2) + 1);
        self.out.push_str(&prefix.first);
        self.out.push_str(&fence);
        if let Some(language) = items.iter().find_map(|(b, _)| b.code_language.as_deref()) {
            self.out.push_str(language);
        }
        for (block, _) in items {
            for line in block.text.split('\n') {
                self.out.push('\n');
                if line.is_empty() {
                    self.out.push_str(prefix.rest.trim_end());
                } else {
                    self.out.push_str(&prefix.rest);
                    self.out.push_str(line);
                }
            }
        }
        self.out.push('\n');
        self.out.push_str(&prefix.rest);
        self.out.push_str(&fence);
    }

    fn table(&mut self, items: &[(&Block, Shape)]) {
        let Some((_, shape)) = items.first() else {
            return;
        };
        let prefix = self.start(&shape.nest);
        let rows = table_rows(items);
        let columns = rows.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
        for (r, (_, cells)) in rows.iter().enumerate() {
            if r > 0 {
                self.out.push('\n');
            }
            self.out
                .push_str(if r == 0 { &prefix.first } else { &prefix.rest });
            self.out.push('|');
            for c in 0..columns {
                self.out.push(' ');
                if let Some((_, blocks)) = cells.get(c) {
                    for (k, block) in blocks.iter().enumerate() {
                        if k > 0 {
                            self.out.push(' ');
                        }
                        inline(&mut self.out, &block.text, &block.code_spans, Escape::Cell);
                    }
                }
                self.out.push_str(" |");
            }
            if r == 0 {
                self.out.push('\n');
                self.out.push_str(&prefix.rest);
                self.out.push('|');
                for _ in 0..columns {
                    self.out.push_str(" --- |");
                }
            }
        }
    }
}

fn push_spaces(s: &mut String, n: usize) {
    s.extend(std::iter::repeat_n(' ', n));
}

/// Length of the longest run of `c` in `s`.
fn longest_run(s: &str, c: char) -> usize {
    let (mut longest, mut run) = (0, 0);
    for x in s.chars() {
        run = if x == c { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// Where inline text goes, and so what must be escaped besides inline markup.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escape {
    /// At the start of a line: also what would start a block (`#`, `>`, `-`, `1.`, ...).
    LineStart,
    /// In a table cell: also `|`.
    Cell,
}

/// Appends `text` with its code spans as Markdown code spans and everything else escaped.
fn inline(out: &mut String, text: &str, spans: &[(u32, u32)], escape: Escape) {
    let mut at = 0;
    for &(start, end) in spans {
        let (start, end) = (start as usize, end as usize);
        let (Some(before), Some(code)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        plain(out, before, escape == Escape::LineStart && at == 0, escape);
        code_span(out, code);
        at = end;
    }
    plain(
        out,
        text.get(at..).unwrap_or_default(),
        escape == Escape::LineStart && at == 0,
        escape,
    );
}

/// A code span of `code`: its edge white space stays outside, the backtick fence is longer than
/// any run of backticks inside.
fn code_span(out: &mut String, code: &str) {
    let body = code.trim();
    if body.is_empty() {
        out.push_str(code);
        return;
    }
    let lead = &code[..code.len() - code.trim_start().len()];
    let trail = &code[code.trim_end().len()..];
    let fence = "`".repeat(longest_run(body, '`') + 1);
    let pad = if body.starts_with('`') || body.ends_with('`') {
        " "
    } else {
        ""
    };
    out.push_str(lead);
    out.push_str(&fence);
    out.push_str(pad);
    out.push_str(body);
    out.push_str(pad);
    out.push_str(&fence);
    out.push_str(trail);
}

/// Appends plain text, escaping what Markdown would read as markup. Runs without a byte that
/// may need escaping are copied whole.
fn plain(out: &mut String, text: &str, line_start: bool, escape: Escape) {
    let text = if line_start {
        escape_line_start(out, text)
    } else {
        text
    };
    let bytes = text.as_bytes();
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped = match b {
            b'\\' | b'`' | b'*' | b'[' | b']' => true,
            b'|' => escape == Escape::Cell,
            // Inside a word `_` is never emphasis (snake_case stays readable).
            b'_' => {
                let before = text[..i].chars().next_back();
                let after = text[i + 1..].chars().next();
                !(before.is_some_and(char::is_alphanumeric)
                    && after.is_some_and(char::is_alphanumeric))
            }
            b'<' => bytes
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_alphabetic() || matches!(n, b'/' | b'!' | b'?')),
            _ => false,
        };
        if escaped {
            out.push_str(&text[copied..i]);
            out.push('\\');
            copied = i;
        }
    }
    out.push_str(&text[copied..]);
}

/// Escapes what would make a line a heading, quote, list item, thematic break or fence; returns
/// the rest of `text`.
fn escape_line_start<'t>(out: &mut String, text: &'t str) -> &'t str {
    match text.chars().next() {
        Some(c @ ('#' | '>' | '-' | '+' | '=' | '~')) => {
            out.push('\\');
            out.push(c);
            &text[c.len_utf8()..]
        }
        Some('0'..='9') => {
            let digits = text.bytes().take_while(u8::is_ascii_digit).count();
            match text.as_bytes().get(digits) {
                Some(b'.' | b')') if digits <= 9 => {
                    out.push_str(&text[..digits]);
                    out.push('\\');
                    &text[digits..]
                }
                _ => text,
            }
        }
        _ => text,
    }
}

#[cfg(test)]
mod tests;
