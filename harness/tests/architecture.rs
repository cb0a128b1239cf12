//! The library's module graph, read from its sources: no import cycle, and ARCHITECTURE.md's table of
//! which module may use which tells the truth.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn root() -> PathBuf {
    skinproof::config::project_root()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without comments and without an inline `#[cfg(test)] mod … { … }` at its end: test
/// code may reach anywhere, the library may not.
fn library_code(text: &str) -> String {
    let mut code: String = text
        .lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut from = 0;
    while let Some(i) = code[from..].find("#[cfg(test)]") {
        let at = from + i;
        let rest = code[at + "#[cfg(test)]".len()..].trim_start();
        let inline = rest
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub ")
            .strip_prefix("mod ")
            .and_then(|r| r.split_once(['{', ';']))
            .is_some_and(|(name, _)| {
                let after = &rest[rest.find(name).unwrap() + name.len()..];
                after.starts_with('{')
            });
        if inline {
            code.truncate(at);
            break;
        }
        from = at + 1;
    }
    code
}

/// The top-level modules each top-level module uses, through `use crate::…` or inline
/// `crate::x::Y` paths (`use crate::{a, b::C}` counts both).
fn graph() -> Graph {
    let lib = root().join("harness/lib");
    let mut files = Vec::new();
    rust_files(&lib, &mut files);
    let mut graph = Graph::new();
    for file in files {
        let rel = file.strip_prefix(&lib).unwrap();
        let top = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let code = library_code(&std::fs::read_to_string(&file).unwrap());
        let uses = graph.entry(top.clone()).or_default();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let end = group.find('}').unwrap_or(group.len());
                for part in group[..end].split(',') {
                    let name = part.trim().split("::").next().unwrap_or("").trim();
                    if !name.is_empty() {
                        uses.insert(name.to_string());
                    }
                }
            } else {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    uses.insert(name);
                }
            }
        }
        uses.remove(&top);
    }
    graph
}

/// A cycle through `start`, if there is one (depth-first search).
fn cycle_from(graph: &Graph, start: &str) -> Option<Vec<String>> {
    fn dfs(
        graph: &Graph,
        at: &str,
        start: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for next in graph.get(at).into_iter().flatten() {
            if next == start {
                return true;
            }
            if seen.insert(next.clone()) {
                path.push(next.clone());
                if dfs(graph, next, start, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_string()];
    dfs(graph, start, start, &mut path, &mut BTreeSet::new()).then(|| {
        path.push(start.to_string());
        path
    })
}

#[test]
fn no_import_cycle() {
    let graph = graph();
    assert!(graph.len() > 10, "found only {:?}", graph.keys());
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_from(&graph, m))
        .map(|c| c.join(" -> "))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// ARCHITECTURE.md's module table: module -> the modules it may use (`-` for none).
fn documented() -> Graph {
    let text = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut out = Graph::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `module` | purpose | may use |
        if cells.len() != 5 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`').trim_end_matches('/').to_string();
        let uses = cells[3]
            .split(',')
            .map(|s| s.trim().trim_matches('`').trim_end_matches('/'))
            .filter(|s| !s.is_empty() && *s != "-")
            .map(str::to_string)
            .collect();
        out.insert(name, uses);
    }
    out
}

#[test]
fn architecture_md_tells_the_truth() {
    let real = graph();
    let doc = documented();
    let mut wrong = Vec::new();
    for (module, uses) in &real {
        let Some(allowed) = doc.get(module) else {
            wrong.push(format!(
                "`{module}` is not in ARCHITECTURE.md's module table"
            ));
            continue;
        };
        for u in uses.difference(allowed) {
            wrong.push(format!(
                "`{module}` uses `{u}`, which ARCHITECTURE.md does not allow"
            ));
        }
        for u in allowed.difference(uses) {
            wrong.push(format!(
                "ARCHITECTURE.md lets `{module}` use `{u}`, which it does not"
            ));
        }
    }
    for module in doc.keys().filter(|m| !real.contains_key(*m)) {
        wrong.push(format!(
            "ARCHITECTURE.md lists `{module}`, which harness/lib does not have"
        ));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_graph_reader_sees_grouped_and_inline_paths() {
    let code = library_code(
        "use crate::{a, b::C};\nfn f() { crate::d::e(); } // crate::z\n#[cfg(test)]\nmod tests {\n use crate::t;\n}\n",
    );
    assert!(
        code.contains("crate::d::e") && !code.contains("crate::z") && !code.contains("crate::t")
    );
}
