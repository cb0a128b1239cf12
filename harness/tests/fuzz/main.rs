//! Fuzz tests (proptest) of the case parser and validator, `Case::parse(path, text, checks)`, of
//! `yaml_line`, of the profile draft (`skinproof::draft::draft`) over edited shaders, and of
//! layout profiles held to their shaders. Properties: nothing panics; every error's text starts
//! with the file path given (for a profile: the profile, the shader or the module it is in); a
//! `Parse` or `Invalid` error names a line (>= 1) that exists in the text; a generated case whose
//! values are all valid loads, and one with an invalid value fails naming that value's field.
//!
//! Inputs: random YAML-ish text, generated cases (block, flow or mixed style) with random and
//! hostile values, mutations of the real case files (byte flips, truncation, line duplication,
//! deletion and swaps, inserted tokens, hostile numbers), and of the shipped profiles (their
//! numbers and words changed, then those mutations). `SKINPROOF_FUZZ_CASES=N` sets the number
//! of inputs per property (default `skinproof::config::DEFAULT_FUZZ_CASES`, a few seconds in all).
//!
//! `cargo test --release --test fuzz -- --ignored bad_inputs_doc` regenerates `docs/bad-inputs.md`
//! from the messages the code really prints; `bad_inputs_doc_is_current` fails while the committed
//! file differs from what it would write.

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use skinproof::case::{Case, CaseError};
use skinproof::yaml_line;

/// The check names an `expect` entry may use.
fn checks() -> Vec<&'static str> {
    skinproof::check::Check::ALL
        .map(skinproof::check::Check::name)
        .to_vec()
}

fn root() -> &'static Path {
    static ROOT: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(skinproof::config::project_root)
}

/// Inputs per property, from `SKINPROOF_FUZZ_CASES`.
fn runs() -> u32 {
    let v = std::env::var("SKINPROOF_FUZZ_CASES").ok();
    skinproof::config::fuzz_cases(v.as_deref()).unwrap_or_else(|e| panic!("{e}"))
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: runs(),
        // No regression files in the tree; a failure prints its minimal input.
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Lines as YAML counts them (a lone CR ends one too), at least 1.
fn line_count(text: &str) -> usize {
    yaml_line::line_count(text)
}

/// The properties every `Case::parse` result has; the error, if any, for further checks.
fn well_formed(path: &Path, text: &str) -> Result<Option<CaseError>, TestCaseError> {
    let Err(e) = Case::parse(path, text, &checks()) else {
        return Ok(None);
    };
    let file = path.display().to_string();
    let msg = e.to_string();
    prop_assert!(
        msg.starts_with(&file),
        "does not start with {file:?}: {msg}"
    );
    let lines = line_count(text);
    match &e {
        CaseError::Parse {
            line,
            column,
            message,
            ..
        } => {
            prop_assert!((1..=lines).contains(line), "line {line} of {lines}: {msg}");
            prop_assert!(*column >= 1, "{msg}");
            prop_assert!(!message.is_empty(), "{msg}");
            prop_assert!(
                msg.starts_with(&format!("{file}:{line}:{column}: ")),
                "{msg}"
            );
        }
        CaseError::Invalid {
            line,
            column,
            field,
            message,
            ..
        } => {
            prop_assert!((1..=lines).contains(line), "line {line} of {lines}: {msg}");
            prop_assert!(!field.is_empty() && !message.is_empty(), "{msg}");
            prop_assert!(
                msg.starts_with(&format!("{file}:{line}:{column}: field `{field}`: ")),
                "{msg}"
            );
        }
        CaseError::Io { .. } => prop_assert!(false, "parse does no I/O: {msg}"),
    }
    Ok(Some(e))
}

mod doc;
mod generate;
mod mutation;
mod profiles;
mod text;

use generate::{generated_case, ok, write, Node};
use mutation::{case_files, field_keys, mutate};
use text::{case_path, yamlish, KEYS};

proptest! {
    #![proptest_config(config())]

    #[test]
    fn random_text_never_panics_and_errors_are_located(path in case_path(), text in yamlish()) {
        well_formed(&path, &text)?;
    }

    #[test]
    fn generated_cases_load_or_name_an_invalid_field((node, style, mode) in generated_case()) {
        let text = write(&node, &style, mode);
        let path = Path::new("cases/fuzz.yaml");
        let mut invalid = Vec::new();
        node.invalid("", &mut invalid);
        let err = well_formed(path, &text)?;
        match (invalid.is_empty(), err) {
            (true, None) => {}
            (true, Some(e)) => prop_assert!(false, "a valid case was rejected: {e}\n{text}"),
            (false, None) => prop_assert!(false, "invalid {invalid:?} accepted:\n{text}"),
            (false, Some(e)) => {
                let msg = e.to_string();
                match &e {
                    CaseError::Invalid { field, line, .. } => {
                        prop_assert!(
                            invalid.iter().any(|f| f == field || f.starts_with(&format!("{field}."))
                                || f.starts_with(&format!("{field}["))),
                            "reported {field}, invalid were {invalid:?}: {msg}\n{text}"
                        );
                        // The line names the field, or (flow style) a mapping that holds it.
                        let at = yaml_line::lines(&text).nth(line - 1).unwrap_or("");
                        prop_assert!(
                            field_keys(field).iter().any(|k| at.contains(k)),
                            "line {line} `{at}` does not hold {field}: {msg}\n{text}"
                        );
                    }
                    CaseError::Parse { message, .. } => {
                        // serde's path of the value that did not deserialize (or its container).
                        let tops: Vec<&str> = invalid
                            .iter()
                            .map(|f| f.split(['.', '[']).next().unwrap_or(""))
                            .collect();
                        prop_assert!(
                            tops.iter().any(|t| message.contains(t)),
                            "parse error names none of {invalid:?}: {msg}\n{text}"
                        );
                    }
                    CaseError::Io { .. } => unreachable!(),
                }
            }
        }
    }

    #[test]
    fn mutated_case_files_never_panic(
        file in 0usize..1000,
        edits in prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 1..5),
    ) {
        let files = case_files();
        let (path, text) = &files[file % files.len()];
        well_formed(path, &mutate(text, &edits))?;
    }

    #[test]
    fn the_draft_never_panics_on_edited_shaders(
        file in 0usize..1000,
        edits in prop::collection::vec((any::<usize>(), 0u32..70), 1..4),
    ) {
        // The shipped shapes with their integer literals changed (strides, offsets, masks,
        // shifts, lanes, indices): valid WGSL as often as not, laid out as no profile says.
        let shaders = example_shaders();
        let (name, text) = &shaders[file % shaders.len()];
        let edited = renumber(text, &edits);
        let drafted = std::panic::catch_unwind(|| skinproof::draft::draft(name, &edited).map(|d| d.yaml));
        prop_assert!(drafted.is_ok(), "the draft panicked on {name} edited:\n{edited}");
    }

    #[test]
    fn edited_profiles_never_panic_and_errors_are_located(
        pair in 0usize..1000,
        bytes in prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 0..3),
        values in prop::collection::vec((any::<u8>(), any::<usize>(), any::<usize>()), 0..4),
    ) {
        // The shipped profiles with their numbers and words changed (groups, bindings, offsets,
        // strides, formats, forms, entry points), then bytes and lines: each is held to its shader
        // as the suite holds it, parsed, checked against the module and validated.
        let pairs = profiles::pairs();
        let p = &pairs[pair % pairs.len()];
        let text = mutate(&profiles::edit_values(&p.text, &values), &bytes);
        let held = std::panic::catch_unwind(|| {
            skinproof::shader::Shader::with_profile_text(&p.shader, p.source.clone(), &p.profile, &text)
                .and_then(|s| s.validate().map(drop))
        });
        let Ok(held) = held else {
            return Err(TestCaseError::fail(format!("panicked on {} edited:\n{text}", p.profile.display())));
        };
        if let Err(e) = held {
            let msg = e.to_string();
            prop_assert!(names_its_file(&msg), "does not name the file it is in: {msg}\n{text}");
            if let skinproof::shader::ShaderError::Profile(
                CaseError::Parse { line, .. } | CaseError::Invalid { line, .. },
            ) = &e
            {
                prop_assert!((1..=line_count(&text)).contains(line), "line {line}: {msg}\n{text}");
            }
        }
    }

    #[test]
    fn edited_shaders_held_to_their_profiles_never_panic(
        pair in 0usize..1000,
        numbers in prop::collection::vec((any::<usize>(), 0u32..70), 0..3),
        types in prop::collection::vec((any::<usize>(), any::<usize>()), 0..3),
    ) {
        // The shipped shaders with literals and types changed, each held to its own profile: the
        // contract's checks and the capture meet bindings, members and attributes of the wrong
        // type or size as often as not.
        let pairs = profiles::pairs();
        let p = &pairs[pair % pairs.len()];
        let edited = profiles::retype(&renumber(&p.source, &numbers), &types);
        let held = std::panic::catch_unwind(|| {
            skinproof::shader::Shader::with_profile_text(&p.shader, edited.clone(), &p.profile, &p.text)
                .and_then(|s| s.validate().map(drop))
        });
        let Ok(held) = held else {
            return Err(TestCaseError::fail(format!("panicked on {} edited:\n{edited}", p.shader.display())));
        };
        if let Err(e) = held {
            prop_assert!(names_its_file(&e.to_string()), "does not name the file it is in: {e}\n{edited}");
        }
    }

    #[test]
    fn locate_never_panics_and_finds_real_lines(
        text in prop_oneof![
            yamlish(),
            (0usize..1000, prop::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 0..3))
                .prop_map(|(f, e)| {
                    let files = case_files();
                    mutate(&files[f % files.len()].1, &e)
                }),
        ],
        path in prop_oneof![
            "[a-z_\\[\\]0-9.]{0,24}",
            prop::sample::select(KEYS).prop_map(str::to_string),
            "(pose|expect|golden\\.overrides)\\[[0-9]{1,2}\\]\\.(joint|axis|check|reason|name)",
            any::<String>(),
        ],
    ) {
        let lines = yaml_line::lines(&text).count();
        for n in [
            yaml_line::line_of(&text, &path),
            yaml_line::line_near(&text, &path),
            yaml_line::duplicate_key_line(&text, &path),
        ]
        .into_iter()
        .flatten()
        {
            prop_assert!((1..=lines).contains(&n), "line {n} of {lines} for {path:?}");
        }
        if let Some(n) = yaml_line::line_of(&text, &path) {
            prop_assert_eq!(yaml_line::line_near(&text, &path), Some(n));
        }
    }
}

/// Whether `msg` names the file it is in, a file that exists (the profile, the shader, or the
/// module of a composed shader): at its start, then `:`, or, as naga's diagnostics do, on the
/// `┌─ file:line:column` line under the first.
fn names_its_file(msg: &str) -> bool {
    // A GLSL or SPIR-V shader's lines are those of the WGSL naga writes from it: `FILE as WGSL`.
    let exists = |file: &str| {
        let file = file.strip_suffix(" as WGSL").unwrap_or(file);
        !file.is_empty() && (Path::new(file).is_file() || root().join(file).is_file())
    };
    let mut lines = msg.lines();
    let first = lines.next().unwrap_or("");
    let naga = first.starts_with("error: ")
        && lines
            .next()
            .and_then(|l| l.trim_start().strip_prefix("┌─ "))
            .is_some_and(|at| exists(at.split(':').next().unwrap_or("")));
    naga || exists(first.split(':').next().unwrap_or(""))
}

/// The default shader and every shipped example, as (file name, text).
fn example_shaders() -> Vec<(String, String)> {
    static ALL: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();
    ALL.get_or_init(|| {
        profiles::shader_paths()
            .iter()
            // The draft reads WGSL; a GLSL shader is drafted from what naga writes of it.
            .filter(|p| p.extension().is_some_and(|x| x == "wgsl"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(p).unwrap())
            })
            .collect()
    })
    .clone()
}

/// `text` with some of its `u`-suffixed integer literals (`16u`, `0xffffu`) replaced: each edit
/// picks a literal by index and gives it a new value.
fn renumber(text: &str, edits: &[(usize, u32)]) -> String {
    let mut spans = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        while i < bytes.len() && (bytes[i].is_ascii_hexdigit() || bytes[i] == b'x') {
            i += 1;
        }
        let word_start =
            start == 0 || !(bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_');
        if i > start && word_start && bytes[start].is_ascii_digit() && bytes.get(i) == Some(&b'u') {
            spans.push((start, i));
        }
        i = i.max(start + 1);
    }
    if spans.is_empty() {
        return text.to_string();
    }
    let mut out = text.to_string();
    let mut picked: Vec<(usize, usize, u32)> = edits
        .iter()
        .map(|&(k, v)| {
            let (a, b) = spans[k % spans.len()];
            (a, b, v)
        })
        .collect();
    picked.sort_by_key(|p| std::cmp::Reverse(p.0));
    picked.dedup_by_key(|p| p.0);
    for (a, b, v) in picked {
        out.replace_range(a..b, &v.to_string());
    }
    out
}

#[test]
fn the_real_case_files_load_unmutated() {
    for (path, text) in case_files() {
        Case::parse(path, text, &checks()).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn block_and_flow_writers_agree() {
    // The generator's two styles must mean the same case, or the properties test the writer.
    let node = Node::map(vec![
        ("skeleton", Node::map(vec![("joints", ok("3".into()))])),
        ("mesh", Node::map(vec![("vertices", ok("10".into()))])),
        (
            "pose",
            Node::Seq(vec![Node::map(vec![
                ("joint", ok("1".into())),
                (
                    "axis",
                    Node::Seq(vec![ok("0".into()), ok("0".into()), ok("1".into())]),
                ),
            ])]),
        ),
    ]);
    for mode in 0..4 {
        let text = write(&node, &[true, false, true], mode);
        let c = Case::parse(Path::new("cases/w.yaml"), &text, &checks())
            .unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(c.pose[0].axis, [0.0, 0.0, 1.0], "{text}");
    }
}
