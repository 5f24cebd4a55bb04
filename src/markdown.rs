//! Markdown rendering of a page's content blocks (CommonMark with GitHub's pipe tables and `$`
//! math): headings as `#`, list items, fenced code blocks with their white space and language,
//! block quotes, data tables as pipe tables, inline code as code spans, links as `[text](URL)`
//! resolved against the page's base, images as `![alt](source)`, formulas as `$…$`. Pure.
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
//!
//! Inside a block (`inline` module): code spans, formulas (`$…$`, `$$…$$`, the TeX source the
//! page ships or else the linear form), and as [`Options`] ask links (`[text](URL)`, the target
//! resolved against the page's `<base href>` and URL, `links` module) and images (`![alt](src)`).
//! An image that stood in no text has a line of its own after the block it follows (a paragraph,
//! a code block) or, at the page's start, before the block after it.

mod inline;
mod links;

use std::collections::HashMap;

pub use links::base_url;
use url::Url;

use crate::blocks::Block;
use inline::{image_mark, inline, longest_run, Escape};

/// What the rendering shows beyond the text, and where relative URLs resolve.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Links as `[text](URL)` (else their text alone).
    pub links: bool,
    /// Images as `![alt](source)` (else nothing).
    pub images: bool,
    /// What relative link targets and image sources resolve against ([`base_url`]); without
    /// one they stay as written.
    pub base: Option<Url>,
}

impl Default for Options {
    /// Links, no images, no base: the defaults of `[output]`.
    fn default() -> Self {
        Options {
            links: true,
            images: false,
            base: None,
        }
    }
}

/// Renders `blocks`, the content blocks of one page in document order, as Markdown with the
/// default [`Options`]; see [`render_with`].
pub fn render<'b>(blocks: impl IntoIterator<Item = &'b Block>) -> String {
    render_with(blocks, &Options::default())
}

/// Renders `blocks`, the content blocks of one page in document order, as Markdown: blocks are
/// separated by a blank line (list items of one list by a line break), the result has no
/// trailing line break, and the empty input gives the empty string.
pub fn render_with<'b>(blocks: impl IntoIterator<Item = &'b Block>, options: &Options) -> String {
    let items: Vec<(&Block, Shape)> = blocks.into_iter().map(|b| (b, Shape::of(b))).collect();
    let mut out = Renderer {
        options,
        out: String::new(),
        items: HashMap::new(),
        numbers: HashMap::new(),
        in_item: false,
        last_prefix: String::new(),
    };
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

/// Appends the text of `block` as the `text` field shows it when links or images are asked
/// there: as it is (nothing escaped, code as its text, formulas as their linear form), with its
/// links as `[text](URL)` (but in a `<pre>`) and its images as `![alt](src)` as `options` ask (an
/// image that stood in no text on a line of its own).
pub fn write_text(out: &mut String, block: &Block, options: &Options) {
    own_line_images(out, block, options, true, "\n\n", Escape::Raw);
    if block.pre.is_some() {
        // Code as written: a link in a listing is no part of it.
        out.push_str(&block.text);
    } else {
        inline(out, block, options, Escape::Raw);
    }
    own_line_images(out, block, options, false, "\n\n", Escape::Raw);
}

/// Appends the images of `block` that stood in no text, before its text (`leading`) or after
/// it, each after `sep` when after the text and before it when before.
fn own_line_images(
    out: &mut String,
    block: &Block,
    options: &Options,
    leading: bool,
    sep: &str,
    escape: Escape,
) {
    if !options.images {
        return;
    }
    for image in block
        .images
        .iter()
        .filter(|i| i.own_line && (i.at == 0) == leading)
    {
        let Some(url) = links::resolve(&image.src, options.base.as_ref()) else {
            continue;
        };
        if !leading {
            out.push_str(sep);
        }
        image_mark(out, image, &url, escape);
        if leading {
            out.push_str(sep);
        }
    }
}

/// The output and what it has rendered of the page's lists.
struct Renderer<'o> {
    options: &'o Options,
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

impl Renderer<'_> {
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
        self.images(block, shape, true);
        let prefix = self.start(&shape.nest);
        self.out.push_str(&prefix.first);
        if let Some(level) = shape.heading {
            for _ in 0..level {
                self.out.push('#');
            }
            self.out.push(' ');
        }
        inline(&mut self.out, block, self.options, Escape::LineStart);
        self.images(block, shape, false);
    }

    /// The images of `block` that stood in no text, each a unit of its own before its text
    /// (`leading`) or after it.
    fn images(&mut self, block: &Block, shape: &Shape, leading: bool) {
        if !self.options.images || !block.images.iter().any(|i| i.own_line) {
            return;
        }
        for image in block
            .images
            .iter()
            .filter(|i| i.own_line && (i.at == 0) == leading)
        {
            let Some(url) = links::resolve(&image.src, self.options.base.as_ref()) else {
                continue;
            };
            let prefix = self.start(&shape.nest);
            self.out.push_str(&prefix.first);
            image_mark(&mut self.out, image, &url, Escape::LineStart);
        }
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
        for (block, shape) in items {
            self.images(block, shape, false);
        }
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
                        own_line_images(
                            &mut self.out,
                            block,
                            self.options,
                            true,
                            " ",
                            Escape::Cell,
                        );
                        inline(&mut self.out, block, self.options, Escape::Cell);
                        own_line_images(
                            &mut self.out,
                            block,
                            self.options,
                            false,
                            " ",
                            Escape::Cell,
                        );
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

#[cfg(test)]
mod tests;
