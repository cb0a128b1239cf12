//! Finds the line of a field path (`pose[1].joint`) in block-style YAML text, for located errors.

/// One step of a field path.
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

/// The 1-based line where the last step of `path` is written, if the text is plain block YAML.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    // Search window: lines [from, to) whose content is deeper than `parent_indent`.
    let (mut from, mut to) = (0usize, lines.len());
    let mut parent_indent: isize = -1;
    let mut found = None;
    for step in steps(path) {
        let mut hit = None;
        let mut index = 0usize;
        let mut level: Option<usize> = None;
        for (n, line) in lines.iter().enumerate().take(to).skip(from) {
            let content = line.trim_start();
            if content.is_empty() || content.starts_with('#') {
                continue;
            }
            let indent = line.len() - content.len();
            if (indent as isize) <= parent_indent && n > from {
                break;
            }
            match step {
                Step::Key(key) => {
                    // A key may follow a list dash on the same line: `- joint: 1`.
                    let (ind, body) = match content.strip_prefix("- ") {
                        Some(b) => (indent + 2, b.trim_start()),
                        None => (indent, content),
                    };
                    if level.is_none_or(|l| ind <= l)
                        && body
                            .strip_prefix(key)
                            .is_some_and(|r| r.trim_start().starts_with(':'))
                    {
                        hit = Some((n, ind));
                        break;
                    }
                    level.get_or_insert(ind);
                }
                Step::Index(i) => {
                    if content.starts_with('-') {
                        let l = *level.get_or_insert(indent);
                        if indent == l {
                            if index == i {
                                hit = Some((n, indent));
                                break;
                            }
                            index += 1;
                        }
                    }
                }
            }
        }
        let (n, ind) = hit?;
        found = Some(n + 1);
        // Children of a key or item are the following lines indented deeper than it; a list item's
        // own keys start on its dash line.
        from = if matches!(step, Step::Index(_)) {
            n
        } else {
            n + 1
        };
        parent_indent = ind as isize;
        if matches!(step, Step::Index(_)) {
            parent_indent = ind as isize;
        }
        to = lines.len();
    }
    found
}

#[cfg(test)]
mod tests {
    use super::line_of;

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
        assert_eq!(line_of(TEXT, "render.view.scale"), Some(12));
    }

    #[test]
    fn missing_field_is_none() {
        assert_eq!(line_of(TEXT, "golden.name"), None);
        assert_eq!(line_of(TEXT, "pose[1].scale"), None);
    }
}
