//! Which golden files the cases use: goldens two cases share, and goldens no case uses.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::case::Case;

/// Every golden file stem a case names: its own and its per-adapter overrides'.
fn named(case: &Case) -> impl Iterator<Item = &str> {
    std::iter::once(case.golden_name()).chain(case.golden.overrides.iter().map(|o| o.name.as_str()))
}

/// The stems a case compares against: those it names, unless it compares none.
fn stems(case: &Case) -> BTreeSet<&str> {
    if !case.golden.compare {
        return BTreeSet::new();
    }
    named(case).collect()
}

/// For each case whose golden another case also uses, why that fails its `case_loads`, located at
/// the field that names the golden: one golden for two cases means a bless of one rewrites the
/// other's, and a failure names the wrong case's file.
pub fn shared(cases: &[&Case]) -> BTreeMap<String, String> {
    let mut users: BTreeMap<&str, Vec<&Case>> = BTreeMap::new();
    for case in cases {
        for stem in stems(case) {
            users.entry(stem).or_default().push(case);
        }
    }
    let mut out = BTreeMap::new();
    for case in cases {
        let clashes: Vec<(&str, String)> = stems(case)
            .into_iter()
            .filter_map(|stem| {
                let others: Vec<String> = users[stem]
                    .iter()
                    .filter(|o| o.name != case.name)
                    .map(|o| format!("`{}` ({})", o.name, o.path.display()))
                    .collect();
                (!others.is_empty()).then(|| (stem, others.join(", ")))
            })
            .collect();
        let Some(&(first, _)) = clashes.first() else {
            continue;
        };
        // The field that picks the first clashing stem: the case's own name or an override's.
        let field = case
            .golden
            .overrides
            .iter()
            .position(|o| o.name == first && first != case.golden_name())
            .map_or("golden.name".to_string(), |i| {
                format!("golden.overrides[{i}].name")
            });
        let message = format!(
            "{}; each case needs its own golden (it defaults to the case's file name)",
            clashes
                .iter()
                .map(|(stem, others)| format!("golden/{stem}.png is also the golden of {others}"))
                .collect::<Vec<_>>()
                .join("; ")
        );
        let file = case.path.display().to_string();
        let located = crate::case::CaseError::invalid(&file, &case.source, &field, message);
        out.insert(case.name.clone(), located.to_string());
    }
    out
}

/// The files in `goldens` (`<stem>.png` and its `<stem>.json` sidecar) that no case uses, sorted;
/// `loaded` are the cases that loaded and `unreadable` the file stems of case files that did not
/// (their golden keeps its default name, so it is not reported while the case is broken).
pub fn unused(goldens: &Path, loaded: &[&Case], unreadable: &[String]) -> Vec<String> {
    let used: BTreeSet<&str> = loaded
        .iter()
        .flat_map(|c| named(c))
        .chain(unreadable.iter().map(String::as_str))
        .collect();
    let Ok(entries) = std::fs::read_dir(goldens) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "png" || x == "json"))
        .filter(|p| {
            p.file_stem()
                .and_then(|s| s.to_str())
                .is_some_and(|s| !used.contains(s))
        })
        .filter_map(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(name: &str, extra: &str) -> Case {
        let text = format!(
            "description: {name}\nskeleton: {{ joints: 2, segment_length: 1.0 }}\nmesh: {{ vertices: 8, influences: 1 }}\n{extra}"
        );
        Case::parse(Path::new(&format!("cases/{name}.yaml")), &text, &[]).unwrap()
    }

    #[test]
    fn a_shared_golden_names_both_cases() {
        let a = case("two_joints", "");
        let b = case("bend", "golden: { name: two_joints }\n");
        let c = case("alone", "");
        let why = shared(&[&a, &b, &c]);
        assert_eq!(why.len(), 2, "{why:?}");
        assert!(
            why["bend"].starts_with("cases/bend.yaml:4:1: field `golden.name`: golden/two_joints.png is also the golden of `two_joints` (cases/two_joints.yaml)"),
            "{}",
            why["bend"]
        );
        assert!(why["two_joints"].contains("`bend` (cases/bend.yaml)"));
        // A case that does not compare shares nothing.
        let off = case("bend", "golden: { name: two_joints, compare: false }\n");
        assert!(shared(&[&a, &off]).is_empty());
    }

    #[test]
    fn unused_goldens_are_listed_and_used_ones_are_not() {
        let dir = std::env::temp_dir().join(format!("skinproof-usage-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in [
            "a.png",
            "a.json",
            "gone.png",
            "gone.json",
            "broken.png",
            "notes.txt",
        ] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let a = case("a", "");
        assert_eq!(
            unused(&dir, &[&a], &["broken".to_string()]),
            vec!["gone.json".to_string(), "gone.png".to_string()]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
