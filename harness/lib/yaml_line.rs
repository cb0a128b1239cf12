//! Finds the line of a field path (`pose[1].joint`) in YAML text, for located errors.
//!
//! Block-style YAML is followed key by key and item by item (sequences may be indented under their
//! key or written at the key's own indent). Flow-style parts (`mesh: { vertices: 0 }`) are not
//! parsed: `line_near` then gives the line of the deepest part of the path that is written in block
//! style, which is the line the flow mapping starts on. Every line number returned is 1-based and
//! exists in the text (as [`lines`] counts them: a lone CR ends a line too). Nothing here panics,
//! whatever the text.

/// One step of a field path.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, rest) = part.split_once('[').unwrap_or((part, ""));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        for idx in rest.split('[') {
            if let Ok(i) = idx.trim_end_matches(']').parse() {
                out.push(Step::Index(i));
            }
        }
    }
    out
}

/// A line with content (not blank, not only a comment, not a document marker), or the part of a
/// list item's line after its dash (`- joint: 1` also holds `joint: 1`, two columns deeper).
#[derive(Clone, Copy, Debug)]
struct Node<'a> {
    /// 0-based line number.
    line: usize,
    indent: usize,
    body: &'a str,
}

impl<'a> Node<'a> {
    /// The content after a list dash, as a node of its own.
    fn item_body(&self) -> Option<Node<'a>> {
        let rest = self.body.strip_prefix('-')?;
        if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
            return None;
        }
        let trimmed = rest.trim_start_matches([' ', '\t']);
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return None;
        }
        Some(Node {
            line: self.line,
            indent: self.indent + 1 + (rest.len() - trimmed.len()),
            body: trimmed,
        })
    }

    fn is_item(&self) -> bool {
        self.body == "-" || self.body.starts_with("- ") || self.body.starts_with("-\t")
    }

    /// Whether this node writes `key:` (plain, or in single or double quotes).
    fn has_key(&self, key: &str) -> bool {
        let colon_after = |r: &str| {
            let r = r.trim_start_matches([' ', '\t']);
            r.strip_prefix(':')
                .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
        };
        if let Some(r) = self.body.strip_prefix(key) {
            if colon_after(r) {
                return true;
            }
        }
        ['"', '\''].iter().any(|q| {
            self.body
                .strip_prefix(*q)
                .and_then(|r| r.strip_prefix(key))
                .and_then(|r| r.strip_prefix(*q))
                .is_some_and(colon_after)
        })
    }
}

/// The lines of `text` as YAML counts them: a line ends at `\n`, `\r\n` or a lone `\r` (like
/// `str::lines`, which knows only the first two, no empty line follows a final break).
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let r = rest?;
        match r.find(['\n', '\r']) {
            Some(i) => {
                let skip = if r[i..].starts_with("\r\n") { 2 } else { 1 };
                let next = &r[i + skip..];
                rest = (!next.is_empty()).then_some(next);
                Some(&r[..i])
            }
            None => {
                rest = None;
                (!r.is_empty()).then_some(r)
            }
        }
    })
}

/// The 1-based line and column (in characters) of byte `index` of `text`, lines counted as
/// [`lines`] counts them; an index past the end or inside a character is clamped back.
pub fn line_col(text: &str, index: usize) -> (usize, usize) {
    let mut end = index.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let bytes = before.as_bytes();
    let breaks = bytes
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')))
        .count();
    let start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
    (breaks + 1, before[start..].chars().count() + 1)
}

/// Where flow collections (`[`, `{`) or block levels (indents, list dashes) nest deeper than
/// `max`: the 1-based line and column of the first opener past it. One pass over the text, so a
/// hostile file is refused before the YAML parser, whose time grows with the square of the flow
/// depth, sees it. Quotes and comments are skipped; a bracket inside a plain scalar counts, which
/// only errs towards refusing text nested near `max` already.
pub fn too_deep(text: &str, max: usize) -> Option<(usize, usize)> {
    let mut flow = 0usize;
    let mut indents: Vec<usize> = Vec::new();
    for (n, line) in lines(text).enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = &line[indent..];
        if flow == 0 && !body.is_empty() && !body.starts_with('#') {
            while indents.last().is_some_and(|&i| i >= indent) {
                indents.pop();
            }
            indents.push(indent);
            // `- - - x` opens a level per dash.
            let mut rest = body;
            let mut column = indent;
            while let Some(r) = rest
                .strip_prefix('-')
                .filter(|r| r.is_empty() || r.starts_with(' '))
            {
                let r2 = r.trim_start_matches(' ');
                column += rest.len() - r2.len();
                indents.push(column);
                rest = r2;
            }
            if indents.len() > max {
                return Some((n + 1, indent + 1));
            }
        }
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match (quote, c) {
                (Some('"'), '\\') => {
                    chars.next();
                }
                (Some(q), c) if c == q => {
                    if q == '\'' && chars.peek().is_some_and(|&(_, c)| c == '\'') {
                        chars.next();
                    } else {
                        quote = None;
                    }
                }
                (Some(_), _) => {}
                (None, '#') if prev == ' ' || prev == '\t' => break,
                (None, '"' | '\'') if matches!(prev, ' ' | '\t' | '[' | '{' | ',' | ':' | '-') => {
                    quote = Some(c);
                }
                (None, '[' | '{') => {
                    flow += 1;
                    if indents.len() + flow > max {
                        return Some((n + 1, line[..i].chars().count() + 1));
                    }
                }
                (None, ']' | '}') => flow = flow.saturating_sub(1),
                _ => {}
            }
            prev = c;
        }
    }
    None
}

fn nodes(text: &str) -> Vec<Node<'_>> {
    lines(text)
        .enumerate()
        .filter_map(|(n, line)| {
            let body = line.trim_start_matches([' ', '\t']).trim_end();
            let marker = line.starts_with("---") || line.starts_with("...");
            if body.is_empty() || body.starts_with('#') || marker {
                return None;
            }
            Some(Node {
                line: n,
                indent: line.len() - line.trim_start_matches([' ', '\t']).len(),
                body,
            })
        })
        .collect()
}

/// The children of `nodes[at]` (with `own`: the part of its line after a dash, if any): the nodes
/// after it indented deeper, or for a key whose value is a sequence written at the key's own indent,
/// that sequence.
fn children<'a>(nodes: &[Node<'a>], at: usize, own: Option<Node<'a>>) -> Vec<Node<'a>> {
    let parent = nodes[at];
    let mut out: Vec<Node<'a>> = own.into_iter().collect();
    let mut rest = nodes[at + 1..].iter().peekable();
    let same_level_items = own.is_none()
        && rest
            .peek()
            .is_some_and(|n| n.indent == parent.indent && n.is_item());
    for n in rest {
        let inside = n.indent > parent.indent
            || (same_level_items && n.indent == parent.indent && n.is_item());
        if !inside {
            break;
        }
        out.push(*n);
    }
    out
}

/// Follows `path` through the text: the 0-based line of every step that was found, in order.
fn follow(text: &str, path: &str) -> (Vec<(usize, usize)>, bool) {
    let mut scope: Vec<Node<'_>> = nodes(text);
    let mut found = Vec::new();
    let steps = steps(path);
    for step in &steps {
        // The shallowest nodes of the scope are its entries; deeper ones belong to them.
        let Some(level) = scope.iter().map(|n| n.indent).min() else {
            return (found, false);
        };
        let hit = match *step {
            Step::Key(key) => scope
                .iter()
                .position(|n| n.indent == level && !n.is_item() && n.has_key(key)),
            Step::Index(i) => scope
                .iter()
                .enumerate()
                .filter(|(_, n)| n.indent == level && n.is_item())
                .nth(i)
                .map(|(p, _)| p),
        };
        let Some(p) = hit else {
            return (found, false);
        };
        let node = scope[p];
        found.push((node.line, node.indent));
        // The node's children, taken from the scope (an item's own body counts as a child).
        let own = match step {
            Step::Index(_) => node.item_body(),
            Step::Key(_) => None,
        };
        scope = children(&scope, p, own);
        if let (Step::Index(_), Some(first)) = (step, own) {
            // Deeper keys of the item line up with the first key after its dash.
            scope.retain(|n| n.line == first.line || n.indent >= first.indent);
        }
    }
    (found, !steps.is_empty())
}

/// The 1-based line where the last step of `path` is written, if the text writes it in block style.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let (found, complete) = follow(text, path);
    if complete {
        found.last().map(|n| n.0 + 1)
    } else {
        None
    }
}

/// The 1-based line of `path`, or else of its deepest ancestor written in the text (e.g. the line of
/// a flow mapping `mesh: { vertices: 0 }` for `mesh.vertices`); `None` when not even the first step
/// is found.
pub fn line_near(text: &str, path: &str) -> Option<usize> {
    place_near(text, path).map(|(line, _)| line)
}

/// The 1-based line and column where [`line_near`]'s node starts (the key, or an item's dash).
pub fn place_near(text: &str, path: &str) -> Option<(usize, usize)> {
    let (found, _) = follow(text, path);
    found.last().map(|&(line, indent)| {
        let column = lines(text)
            .nth(line)
            .map_or(0, |l| l.get(..indent).map_or(indent, |p| p.chars().count()));
        (line + 1, column + 1)
    })
}

/// The 1-based line where `key` is written a second time in the same mapping (block style), for a
/// `duplicate field` error that comes without a location.
pub fn duplicate_key_line(text: &str, key: &str) -> Option<usize> {
    let all = nodes(text);
    // A key node's mapping: its indent and the line of the nearest shallower node above it, found
    // through a stack of the open nodes, so the whole pass stays linear.
    let mut seen: std::collections::HashSet<(usize, Option<usize>)> = Default::default();
    let mut open: Vec<Node<'_>> = Vec::new();
    for n in &all {
        while open.last().is_some_and(|p| p.indent >= n.indent) {
            open.pop();
        }
        let above = open.last().map(|p| p.line);
        open.push(*n);
        let mut cands: Vec<Node<'_>> = vec![*n];
        let mut cur = *n;
        while let Some(b) = cur.item_body() {
            cands.push(b);
            cur = b;
        }
        for c in cands {
            if c.is_item() || !c.has_key(key) {
                continue;
            }
            // An item's key belongs to that item, so its mapping starts on the item's line.
            let parent = if c.line == n.line && c.indent > n.indent {
                Some(n.line)
            } else {
                above
            };
            if !seen.insert((c.indent, parent)) {
                return Some(c.line + 1);
            }
        }
    }
    None
}

/// Line count as [`lines`] counts it, but at least 1 (an empty file has one empty line).
pub fn line_count(text: &str) -> usize {
    lines(text).count().max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "\
skeleton:
  joints: 3
mesh:
  vertices: 10
pose:
  - joint: 1
    degrees: 10
  - joint: 7
    axis: [0, 0, 1]
render:
  view:
    scale: 1
";

    #[test]
    fn finds_nested_keys_and_items() {
        assert_eq!(line_of(TEXT, "skeleton.joints"), Some(2));
        assert_eq!(line_of(TEXT, "mesh.vertices"), Some(4));
        assert_eq!(line_of(TEXT, "pose[0].joint"), Some(6));
        assert_eq!(line_of(TEXT, "pose[1].joint"), Some(8));
        assert_eq!(line_of(TEXT, "pose[1].axis"), Some(9));
        assert_eq!(line_of(TEXT, "pose[1]"), Some(8));
        assert_eq!(line_of(TEXT, "render.view.scale"), Some(12));
    }

    #[test]
    fn missing_field_is_none() {
        assert_eq!(line_of(TEXT, "golden.name"), None);
        assert_eq!(line_of(TEXT, "pose[1].scale"), None);
        assert_eq!(line_of(TEXT, "pose[2].joint"), None);
        // A key of another mapping is not this one's.
        assert_eq!(line_of(TEXT, "skeleton.vertices"), None);
        assert_eq!(line_of(TEXT, "pose[0].axis"), None);
    }

    #[test]
    fn sequences_at_the_key_indent_and_comments() {
        let text = "# a case\n---\npose:\n- joint: 1\n  # why\n  degrees: 10\n-   joint: 2\n    scale: [1, 1, 1]\nmesh:\n  vertices: 3\n";
        assert_eq!(line_of(text, "pose[0].degrees"), Some(6));
        assert_eq!(line_of(text, "pose[1].joint"), Some(7));
        assert_eq!(line_of(text, "pose[1].scale"), Some(8));
        assert_eq!(line_of(text, "mesh.vertices"), Some(10));
    }

    #[test]
    fn flow_style_gives_the_nearest_written_ancestor() {
        let text = "skeleton: { joints: 3 }\nmesh: {vertices: 0}\npose: [{joint: 9}]\n";
        assert_eq!(line_of(text, "mesh.vertices"), None);
        assert_eq!(line_near(text, "mesh.vertices"), Some(2));
        assert_eq!(line_near(text, "pose[0].joint"), Some(3));
        assert_eq!(line_near(text, "golden.name"), None);
    }

    #[test]
    fn prefixes_and_quoted_keys() {
        let text = "mesh:\n  vertices_x: 1\n  \"vertices\" : 2\n";
        assert_eq!(line_of(text, "mesh.vertices"), Some(3));
        assert_eq!(line_of("a:b: 1\n", "a"), None);
    }

    #[test]
    fn duplicate_keys() {
        let text = "skeleton:\n  joints: 3\nmesh:\n  joints: 4\nskeleton:\n  joints: 5\n";
        assert_eq!(duplicate_key_line(text, "skeleton"), Some(5));
        assert_eq!(duplicate_key_line(text, "joints"), None);
        let text = "pose:\n  - joint: 1\n    joint: 2\n  - joint: 3\n";
        assert_eq!(duplicate_key_line(text, "joint"), Some(3));
    }

    #[test]
    fn odd_text_does_not_panic() {
        for text in [
            "",
            "\n",
            "-",
            "- - -",
            "\t- x:",
            ":",
            "a:\n\t- b",
            "é: 1\n  ü: 2",
            "\r\n\r",
        ] {
            for path in [
                "",
                "a",
                "a.b",
                "[0]",
                "a[0][1].b",
                "[",
                "]",
                "a[x]",
                "..",
                "é.ü",
            ] {
                let _ = line_of(text, path);
                let _ = line_near(text, path);
                let _ = duplicate_key_line(text, path);
            }
        }
    }
}
