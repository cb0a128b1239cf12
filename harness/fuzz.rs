//! Fuzz tests (proptest) of the case parser and validator, `Case::parse(path, text)`, and of
//! `locate`. Properties: nothing panics; every error's text starts with the file path given; a
//! `Parse` or `Invalid` error names a line (>= 1) that exists in the text; a generated case whose
//! values are all valid loads, and one with an invalid value fails naming that value's field.
//!
//! Inputs: random YAML-ish text, generated cases (block, flow or mixed style) with random and
//! hostile values, and mutations of the real case files (byte flips, truncation, line duplication,
//! deletion and swaps, inserted tokens, hostile numbers). `SKINPROOF_FUZZ_CASES=N` sets the number
//! of inputs per property (default `skinproof::config::DEFAULT_FUZZ_CASES`, a few seconds in all).
//!
//! `cargo test --release --test fuzz -- --ignored bad_inputs_doc` regenerates `docs/bad-inputs.md`
//! from the messages the code really prints.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use skinproof::case::{Case, CaseError};
use skinproof::locate;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
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

/// Lines as `str::lines` counts them, at least 1.
fn line_count(text: &str) -> usize {
    text.lines().count().max(1)
}

/// The properties every `Case::parse` result has; the error, if any, for further checks.
fn well_formed(path: &Path, text: &str) -> Result<Option<CaseError>, TestCaseError> {
    let Err(e) = Case::parse(path, text) else {
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
            field,
            message,
            ..
        } => {
            prop_assert!((1..=lines).contains(line), "line {line} of {lines}: {msg}");
            prop_assert!(!field.is_empty() && !message.is_empty(), "{msg}");
            prop_assert!(
                msg.starts_with(&format!("{file}:{line}: field `{field}`: ")),
                "{msg}"
            );
        }
        CaseError::Io { .. } => prop_assert!(false, "parse does no I/O: {msg}"),
    }
    Ok(Some(e))
}

// ---------------------------------------------------------------------------------------------
// Random YAML-ish text.

/// Every key of the schema, and some that are not.
const KEYS: &[&str] = &[
    "description",
    "skeleton",
    "joints",
    "segment_length",
    "mesh",
    "vertices",
    "width",
    "influences",
    "model",
    "path",
    "animation",
    "time",
    "if_missing",
    "pose",
    "joint",
    "axis",
    "degrees",
    "translation",
    "scale",
    "tolerance",
    "max_abs_error",
    "max_relative_error",
    "min_displacement",
    "render",
    "height",
    "view",
    "offset_y",
    "half_width",
    "bind_coverage",
    "min_changed_pixels",
    "golden",
    "name",
    "channel_tolerance",
    "max_differing_pixels",
    "compare",
    "metric",
    "flip_max_mean",
    "flip_percentile",
    "flip_max_percentile",
    "overrides",
    "expect",
    "backend",
    "adapter",
    "driver",
    "check",
    "status",
    "reason",
    "colour",
    "<<",
];

/// YAML syntax and hostile scalars.
const PUNCT: &[&str] = &[
    ": ",
    ":",
    "\n",
    "\n  ",
    "\n    ",
    "\n      ",
    "- ",
    "-",
    "[",
    "]",
    "{",
    "}",
    ", ",
    ",",
    " ",
    "#",
    "# c\n",
    "&a ",
    "*a",
    "&b ",
    "*b",
    "!!str ",
    "!!binary ",
    "!!float ",
    "!t ",
    "<<: ",
    "---\n",
    "--- ",
    "...\n",
    "\t",
    "\"",
    "'",
    "\\",
    "|\n",
    ">\n",
    "|-\n",
    "? ",
    "\r",
    "\r\n",
    "\u{feff}",
    "\u{85}",
    "\u{2028}",
    "\u{a0}",
    ".nan",
    ".NaN",
    ".inf",
    "-.inf",
    "+.INF",
    "~",
    "null",
    "true",
    "false",
    "yes",
    "0x1F",
    "0o17",
    "1_000",
    "-0",
    "-0.0",
    "1e400",
    "-1e400",
    "1e-400",
    "18446744073709551616",
    "-9223372036854775809",
    "4294967296",
    "65536",
    "65537",
    "16777216",
    "16777217",
    "3.4e38",
    "3.5e38",
    "1e-46",
    "é",
    "\u{0}",
    "\u{7f}",
    "\u{1b}",
    "%YAML 1.2\n",
    "%TAG ! tag:x,2000:\n",
    "@",
    "`",
    "%",
    "!",
    "&",
    "*",
    "vulkan",
    "gl",
    "fail",
    "skip",
    "flip",
    "channel",
    "posed_matches_cpu",
];

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(KEYS).prop_map(|k| format!("{k}: ")),
        4 => prop::sample::select(PUNCT).prop_map(str::to_string),
        2 => "[a-z_]{1,8}",
        2 => "-?[0-9]{1,22}(\\.[0-9]{0,4})?([eE]-?[0-9]{1,3})?",
        1 => any::<char>().prop_map(String::from),
        1 => "[ -~]{0,6}",
    ]
}

fn yamlish() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::collection::vec(token(), 0..80).prop_map(|v| v.concat()),
        1 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..200)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn case_path() -> impl Strategy<Value = PathBuf> {
    prop_oneof![
        4 => Just(PathBuf::from("cases/fuzz.yaml")),
        1 => "[a-z]{1,6}/[a-zA-Z0-9_ .!é-]{0,10}\\.yaml".prop_map(PathBuf::from),
        1 => Just(PathBuf::from("")),
        1 => Just(PathBuf::from("/abs/dir with space/case-1.yml")),
    ]
}

// ---------------------------------------------------------------------------------------------
// Generated cases: a tree of values, each scalar valid or not, written in block or flow style.

#[derive(Clone, Debug)]
enum Node {
    /// YAML text of a scalar, and whether the value is valid for its field.
    Scalar(String, bool),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
}

impl Node {
    fn map(entries: Vec<(&str, Node)>) -> Node {
        Node::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Field paths (`pose[1].axis`) of the invalid scalars.
    fn invalid(&self, at: &str, out: &mut Vec<String>) {
        match self {
            Node::Scalar(_, ok) => {
                if !ok {
                    out.push(at.to_string());
                }
            }
            Node::Map(entries) => {
                for (k, v) in entries {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    v.invalid(&p, out);
                }
            }
            Node::Seq(items) => {
                for (i, v) in items.iter().enumerate() {
                    v.invalid(&format!("{at}[{i}]"), out);
                }
            }
        }
    }

    fn flow(&self) -> String {
        match self {
            Node::Scalar(s, _) => s.clone(),
            Node::Map(e) => format!(
                "{{ {} }}",
                e.iter()
                    .map(|(k, v)| format!("{k}: {}", v.flow()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Node::Seq(items) => format!(
                "[{}]",
                items.iter().map(Node::flow).collect::<Vec<_>>().join(", ")
            ),
        }
    }

    /// Block style at `indent`, each nested map or list in flow style where `style` says so.
    fn block(&self, indent: usize, style: &mut impl Iterator<Item = bool>, out: &mut String) {
        let pad = " ".repeat(indent);
        match self {
            Node::Scalar(s, _) => out.push_str(&format!("{pad}{s}\n")),
            Node::Map(entries) => {
                for (k, v) in entries {
                    match v {
                        Node::Scalar(s, _) => out.push_str(&format!("{pad}{k}: {s}\n")),
                        Node::Map(e) if e.is_empty() => out.push_str(&format!("{pad}{k}: {{}}\n")),
                        Node::Seq(e) if e.is_empty() => out.push_str(&format!("{pad}{k}: []\n")),
                        _ if style.next().unwrap_or(false) => {
                            out.push_str(&format!("{pad}{k}: {}\n", v.flow()))
                        }
                        Node::Seq(_) if style.next().unwrap_or(false) => {
                            // A sequence at its key's own indent.
                            out.push_str(&format!("{pad}{k}:\n"));
                            v.block(indent, style, out);
                        }
                        _ => {
                            out.push_str(&format!("{pad}{k}:\n"));
                            v.block(indent + 2, style, out);
                        }
                    }
                }
            }
            Node::Seq(items) => {
                for item in items {
                    match item {
                        Node::Map(e) if !e.is_empty() && !style.next().unwrap_or(false) => {
                            let mut inner = String::new();
                            item.block(indent + 2, style, &mut inner);
                            // `- first: 1` then the other keys under it.
                            out.push_str(&format!("{pad}- {}", &inner[indent + 2..]));
                        }
                        _ => out.push_str(&format!("{pad}- {}\n", item.flow())),
                    }
                }
            }
        }
    }
}

fn yaml_f64(v: f64) -> String {
    if v.is_nan() {
        ".nan".into()
    } else if v == f64::INFINITY {
        ".inf".into()
    } else if v == f64::NEG_INFINITY {
        "-.inf".into()
    } else {
        format!("{v:?}")
    }
}

fn yaml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn ok(s: String) -> Node {
    Node::Scalar(s, true)
}
fn bad(s: String) -> Node {
    Node::Scalar(s, false)
}

/// A valid value from `good` (16 in 17) or an invalid one from `evil`.
fn pick<T: std::fmt::Debug + Clone + 'static>(
    good: impl Strategy<Value = T> + 'static,
    evil: impl Strategy<Value = T> + 'static,
    show: fn(T) -> String,
) -> BoxedStrategy<Node> {
    prop_oneof![
        16 => good.prop_map(move |v| ok(show(v))),
        1 => evil.prop_map(move |v| bad(show(v))),
    ]
    .boxed()
}

const NON_FINITE: [f64; 3] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY];

fn positive() -> BoxedStrategy<Node> {
    pick(
        1e-3f64..1e3,
        prop::sample::select(vec![
            0.0,
            -0.0,
            -1.0,
            -1e-3,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e39,
            1e-50,
            f64::MAX,
        ]),
        yaml_f64,
    )
}

/// A positive f64 that stays on the CPU (a tolerance): any finite value above 0 is valid.
fn positive64() -> BoxedStrategy<Node> {
    pick(
        prop_oneof![1e-9f64..1.0, Just(1e-300), Just(1e39), Just(f64::MAX)],
        prop::sample::select(vec![
            0.0,
            -0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]),
        yaml_f64,
    )
}

fn finite(lo: f64, hi: f64) -> BoxedStrategy<Node> {
    pick(
        lo..hi,
        prop::sample::select(vec![
            NON_FINITE[0],
            NON_FINITE[1],
            NON_FINITE[2],
            1e39,
            -1e300,
        ]),
        yaml_f64,
    )
}

fn nonzero(lo: f64, hi: f64) -> BoxedStrategy<Node> {
    pick(
        (lo..hi, any::<bool>()).prop_map(|(v, neg)| if neg { -v } else { v }),
        prop::sample::select(vec![0.0, -0.0, f64::NAN, f64::INFINITY, 1e39, 1e-50]),
        yaml_f64,
    )
}

fn vec3(component: BoxedStrategy<Node>) -> BoxedStrategy<Node> {
    prop::collection::vec(component, 3)
        .prop_map(Node::Seq)
        .boxed()
}

fn axis() -> BoxedStrategy<Node> {
    prop_oneof![
        8 => (-10.0f64..10.0, -10.0f64..10.0, -10.0f64..10.0).prop_map(|(x, y, z)| {
            let x = if x.abs().max(y.abs()).max(z.abs()) < 0.1 { 1.0 } else { x };
            Node::Seq(vec![ok(yaml_f64(x)), ok(yaml_f64(y)), ok(yaml_f64(z))])
        }),
        1 => prop::sample::select(vec![
            [0.0, 0.0, 0.0],
            [f64::NAN, 0.0, 1.0],
            [0.0, f64::INFINITY, 0.0],
            [1e39, 0.0, 0.0],
            [1e-200, 0.0, 0.0],
        ])
        .prop_map(|a| bad(format!("[{}]", a.map(yaml_f64).join(", ")))),
    ]
    .boxed()
}

fn optional(
    entries: Vec<(&'static str, BoxedStrategy<Node>)>,
) -> BoxedStrategy<Vec<(String, Node)>> {
    let parts: Vec<BoxedStrategy<Option<(String, Node)>>> = entries
        .into_iter()
        .map(|(k, s)| prop::option::of(s.prop_map(move |n| (k.to_string(), n))).boxed())
        .collect();
    parts
        .prop_map(|v| v.into_iter().flatten().collect())
        .boxed()
}

/// A pose entry for a chain of `joints` (`None`: a model, whose joint count the parser cannot know).
fn pose_entry(joints: Option<usize>) -> BoxedStrategy<Node> {
    let joint = match joints {
        Some(n) => pick(
            0..n.max(1),
            prop_oneof![Just(n), Just(n + 7), Just(usize::MAX)],
            |j| j.to_string(),
        ),
        None => (0usize..1000).prop_map(|j| ok(j.to_string())).boxed(),
    };
    (
        joint,
        optional(vec![
            ("axis", axis()),
            (
                "degrees",
                // Any finite angle: the rotation is made in f64.
                pick(
                    prop_oneof![-1e6f64..1e6, Just(1e300), Just(-1e39)],
                    prop::sample::select(NON_FINITE.to_vec()),
                    yaml_f64,
                ),
            ),
            ("translation", vec3(finite(-1e3, 1e3))),
            ("scale", vec3(nonzero(0.01, 100.0))),
        ]),
    )
        .prop_map(|(j, mut rest)| {
            rest.insert(0, ("joint".into(), j));
            Node::Map(rest)
        })
        .boxed()
}

fn adapter_match() -> BoxedStrategy<Vec<(String, Node)>> {
    optional(vec![
        (
            "backend",
            pick(
                prop::sample::select(vec!["vulkan", "gl", "metal", "dx12", "GL", "Vulkan"]),
                prop::sample::select(vec!["vulcan", "vk", "", "vulkan,gl", " gl"]),
                yaml_str,
            ),
        ),
        (
            "adapter",
            "[a-zA-Z ]{0,8}".prop_map(|s| ok(yaml_str(&s))).boxed(),
        ),
        (
            "driver",
            "[a-zA-Z0-9 ]{0,8}".prop_map(|s| ok(yaml_str(&s))).boxed(),
        ),
    ])
}

fn reason() -> BoxedStrategy<Node> {
    pick(
        "[a-z][a-z ]{0,12}",
        prop::sample::select(vec!["".to_string(), "  ".to_string()]),
        |s| yaml_str(&s),
    )
}

fn stem() -> BoxedStrategy<Node> {
    pick(
        "[a-zA-Z0-9_-]{1,12}",
        prop::sample::select(vec!["", "a b", "../x", "x/y", "é", "x.png"]).prop_map(String::from),
        |s| yaml_str(&s),
    )
}

fn expect_entry() -> BoxedStrategy<Node> {
    let checks: Vec<&'static str> = skinproof::check::Check::ALL
        .iter()
        .map(|c| c.name())
        .collect();
    (
        adapter_match(),
        pick(
            prop::sample::select(checks),
            prop::sample::select(vec!["bogus_check", "", "Posed_Matches_Cpu"]),
            yaml_str,
        ),
        pick(
            prop::sample::select(vec!["fail", "skip"]),
            prop::sample::select(vec!["maybe", "FAIL", ""]),
            str::to_string,
        ),
        reason(),
    )
        .prop_map(|(mut on, check, status, reason)| {
            on.push(("check".into(), check));
            on.push(("status".into(), status));
            on.push(("reason".into(), reason));
            Node::Map(on)
        })
        .boxed()
}

fn override_entry() -> BoxedStrategy<Node> {
    (adapter_match(), stem(), reason())
        .prop_map(|(mut on, name, reason)| {
            on.push(("name".into(), name));
            on.push(("reason".into(), reason));
            Node::Map(on)
        })
        .boxed()
}

fn size() -> BoxedStrategy<Node> {
    pick(
        prop_oneof![1i64..=512, Just(8192)],
        prop::sample::select(vec![0i64, 8193, 100_000, -1, 4_294_967_296]),
        |v| v.to_string(),
    )
}

/// Top-level entries of a case, and the chain's joint count (`None` for a model).
type Body = (Vec<(String, Node)>, Option<usize>);

/// The model, or the chain and strip.
fn body() -> BoxedStrategy<Body> {
    let chain = (
        prop_oneof![1usize..=64, Just(65_536), 1usize..=65_536],
        prop::option::of(positive()),
        pick(
            prop_oneof![1usize..=2000, Just(skinproof::case::MAX_VERTICES)],
            prop::sample::select(vec![0usize, skinproof::case::MAX_VERTICES + 1, 1 << 40]),
            |v| v.to_string(),
        ),
        optional(vec![
            ("width", positive()),
            (
                "influences",
                pick(1usize..=4, prop::sample::select(vec![0usize, 5, 100]), |v| {
                    v.to_string()
                }),
            ),
        ]),
        prop_oneof![8 => Just(None), 1 => prop::sample::select(vec![0usize, 65_537, 1 << 40]).prop_map(Some)],
    )
        .prop_map(|(joints, seg, vertices, mesh_rest, bad_joints)| {
            let mut skeleton = vec![(
                "joints".to_string(),
                match bad_joints {
                    Some(j) => bad(j.to_string()),
                    None => ok(joints.to_string()),
                },
            )];
            if let Some(s) = seg {
                skeleton.push(("segment_length".into(), s));
            }
            let mut mesh = vec![("vertices".to_string(), vertices)];
            mesh.extend(mesh_rest);
            (
                vec![
                    ("skeleton".to_string(), Node::Map(skeleton)),
                    ("mesh".to_string(), Node::Map(mesh)),
                ],
                Some(if bad_joints.is_some() { 0 } else { joints }),
            )
        });
    let model = (
        prop_oneof![
            4 => Just(("nowhere/missing.glb", "skip", true)),
            1 => Just(("nowhere/missing.gltf", "fail", false)),
            1 => Just(("model.obj", "skip", false)),
            1 => Just(("", "skip", false)),
        ],
        optional(vec![
            (
                "time",
                pick(
                    0.0f64..10.0,
                    prop::sample::select(vec![-1.0, f64::NAN, f64::INFINITY]),
                    yaml_f64,
                ),
            ),
            (
                "animation",
                pick("[a-z0-9]{1,5}", Just(String::new()), |s| yaml_str(&s)),
            ),
            (
                "mesh",
                pick("[a-z0-9]{1,5}", Just(" ".to_string()), |s| yaml_str(&s)),
            ),
        ]),
    )
        .prop_map(|((path, missing, valid), rest)| {
            let mut m = vec![("path".to_string(), Node::Scalar(yaml_str(path), valid))];
            m.push(("if_missing".into(), ok(missing.into())));
            m.extend(rest);
            (vec![("model".to_string(), Node::Map(m))], None)
        });
    prop_oneof![5 => chain, 1 => model].boxed()
}

/// A whole case: its tree and the style choices that write it.
fn generated_case() -> impl Strategy<Value = (Node, Vec<bool>, u8)> {
    let rest = (
        prop::option::of("[ -~\u{a0}-\u{d7ff}]{0,20}"),
        prop::option::of(optional(vec![
            ("max_abs_error", positive64()),
            ("max_relative_error", positive64()),
            ("min_displacement", positive64()),
        ])),
        prop::option::of(
            (
                optional(vec![
                    ("width", size()),
                    ("height", size()),
                    (
                        "min_changed_pixels",
                        any::<u64>().prop_map(|v| ok(v.to_string())).boxed(),
                    ),
                ]),
                prop::option::of((nonzero(0.01, 10.0), finite(-10.0, 10.0), positive())),
                prop::option::of((0u64..5000, 0u64..5000)),
            )
                .prop_map(|(mut r, view, cov)| {
                    if let Some((scale, offset_y, half_width)) = view {
                        r.push((
                            "view".into(),
                            Node::map(vec![
                                ("scale", scale),
                                ("offset_y", offset_y),
                                ("half_width", half_width),
                            ]),
                        ));
                    }
                    if let Some((lo, hi)) = cov {
                        r.push((
                            "bind_coverage".into(),
                            Node::Scalar(format!("[{lo}, {hi}]"), lo <= hi),
                        ));
                    }
                    r
                }),
        ),
        prop::option::of(
            (
                optional(vec![
                    ("name", stem()),
                    (
                        "channel_tolerance",
                        pick(0u32..=255, 256u32..1000, |v| v.to_string()),
                    ),
                    (
                        "max_differing_pixels",
                        any::<u64>().prop_map(|v| ok(v.to_string())).boxed(),
                    ),
                    (
                        "compare",
                        pick(
                            prop::sample::select(vec!["true", "false"]),
                            prop::sample::select(vec!["maybe", "2"]),
                            str::to_string,
                        ),
                    ),
                    (
                        "metric",
                        pick(
                            prop::sample::select(vec!["channel", "flip"]),
                            Just("ssim"),
                            str::to_string,
                        ),
                    ),
                    (
                        "flip_max_mean",
                        pick(
                            0.0f64..1.0,
                            prop::sample::select(vec![-1.0, f64::NAN]),
                            yaml_f64,
                        ),
                    ),
                    (
                        "flip_percentile",
                        pick(
                            0.0f64..=1.0,
                            prop::sample::select(vec![1.5, -0.1, f64::NAN]),
                            yaml_f64,
                        ),
                    ),
                    (
                        "flip_max_percentile",
                        pick(
                            0.0f64..1.0,
                            prop::sample::select(vec![-1e-9, f64::INFINITY]),
                            yaml_f64,
                        ),
                    ),
                ]),
                prop::collection::vec(override_entry(), 0..3),
            )
                .prop_map(|(mut g, o)| {
                    if !o.is_empty() {
                        g.push(("overrides".into(), Node::Seq(o)));
                    }
                    g
                }),
        ),
        prop::collection::vec(expect_entry(), 0..3),
    );
    (
        body(),
        rest,
        prop::collection::vec(any::<bool>(), 64),
        any::<u8>(),
    )
        .prop_flat_map(|((body, joints), rest, style, mode)| {
            let poses = prop::collection::vec(pose_entry(joints), 0..4);
            (Just((body, rest, style, mode)), poses)
        })
        .prop_map(
            |((mut top, (description, tolerance, render, golden, expect), style, mode), pose)| {
                if let Some(d) = description {
                    top.insert(0, ("description".into(), ok(yaml_str(&d))));
                }
                if !pose.is_empty() {
                    top.push(("pose".into(), Node::Seq(pose)));
                }
                for (k, v) in [
                    ("tolerance", tolerance),
                    ("render", render),
                    ("golden", golden),
                ] {
                    if let Some(v) = v {
                        top.push((k.into(), Node::Map(v)));
                    }
                }
                if !expect.is_empty() {
                    top.push(("expect".into(), Node::Seq(expect)));
                }
                (Node::Map(top), style, mode)
            },
        )
}

/// The case as YAML: mode 0 all flow, 1 all block, else block with some parts in flow style.
fn write(node: &Node, style: &[bool], mode: u8) -> String {
    match mode % 4 {
        0 => format!("{}\n", node.flow()),
        1 => {
            let mut out = String::new();
            node.block(0, &mut std::iter::repeat(false), &mut out);
            out
        }
        _ => {
            let mut out = String::new();
            node.block(0, &mut style.iter().copied().cycle(), &mut out);
            out
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Mutations of the real case files.

fn case_files() -> &'static [(PathBuf, String)] {
    static FILES: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    FILES.get_or_init(|| {
        skinproof::suite::case_files(&root().join("cases"))
            .unwrap()
            .into_iter()
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                (p.strip_prefix(root()).unwrap().to_path_buf(), text)
            })
            .collect()
    })
}

const HOSTILE_NUMBERS: &[&str] = &[
    ".nan",
    ".inf",
    "-.inf",
    "0",
    "-0",
    "-1",
    "1e39",
    "1e-50",
    "1e400",
    "18446744073709551616",
    "65537",
    "16777217",
    "4294967296",
    "-.5",
    "0x10",
    "~",
];

/// One edit: (kind, position, byte).
fn mutate(text: &str, edits: &[(u8, usize, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(kind, pos, byte) in edits {
        let len = bytes.len();
        let mut lines: Vec<Vec<u8>> = bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
        let n = lines.len();
        match kind % 8 {
            0 if len > 0 => bytes[pos % len] ^= byte | 1,
            1 => bytes.truncate(pos % (len + 1)),
            2 => {
                let l = lines[pos % n].clone();
                lines.insert(pos % n, l);
                bytes = lines.join(&b'\n');
            }
            3 => {
                lines.remove(pos % n);
                bytes = lines.join(&b'\n');
            }
            4 => {
                let t = PUNCT[byte as usize % PUNCT.len()].as_bytes();
                let at = pos % (len + 1);
                bytes.splice(at..at, t.iter().copied()).for_each(drop);
            }
            5 => {
                lines.swap(pos % n, byte as usize % n);
                bytes = lines.join(&b'\n');
            }
            6 => {
                // Replace the digits of some number with a hostile one.
                let starts: Vec<usize> = (0..len)
                    .filter(|&i| {
                        bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_digit())
                    })
                    .collect();
                if let Some(&s) = starts.get(pos % starts.len().max(1)) {
                    let e = (s..len)
                        .find(|&i| !bytes[i].is_ascii_digit() && bytes[i] != b'.')
                        .unwrap_or(len);
                    let h = HOSTILE_NUMBERS[byte as usize % HOSTILE_NUMBERS.len()].as_bytes();
                    bytes.splice(s..e, h.iter().copied()).for_each(drop);
                }
            }
            _ => {
                // Re-indent a line by a few spaces or a tab.
                let l = &mut lines[pos % n];
                match byte % 3 {
                    0 => l.splice(0..0, *b"  ").for_each(drop),
                    1 => l.splice(0..0, *b"\t").for_each(drop),
                    _ => l.splice(0..l.len().min(2), []).for_each(drop),
                }
                bytes = lines.join(&b'\n');
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Field names of a path: `pose[1].axis` -> pose, axis.
fn field_keys(field: &str) -> Vec<&str> {
    field
        .split(['.', '['])
        .map(|k| k.trim_end_matches(']'))
        .filter(|k| !k.is_empty() && !k.chars().all(|c| c.is_ascii_digit()))
        .collect()
}

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
                        let at = text.lines().nth(line - 1).unwrap_or("");
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
        let lines = text.lines().count();
        for n in [
            locate::line_of(&text, &path),
            locate::line_near(&text, &path),
            locate::duplicate_key_line(&text, &path),
        ]
        .into_iter()
        .flatten()
        {
            prop_assert!((1..=lines).contains(&n), "line {n} of {lines} for {path:?}");
        }
        if let Some(n) = locate::line_of(&text, &path) {
            prop_assert_eq!(locate::line_near(&text, &path), Some(n));
        }
    }
}

#[test]
fn the_real_case_files_load_unmutated() {
    for (path, text) in case_files() {
        Case::parse(path, text).unwrap_or_else(|e| panic!("{e}"));
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
        let c =
            Case::parse(Path::new("cases/w.yaml"), &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(c.pose[0].axis, [0.0, 0.0, 1.0], "{text}");
    }
}

// ---------------------------------------------------------------------------------------------
// docs/bad-inputs.md: every class of bad input with the message the code really prints.

/// One row of the table: the class, the input (as written), what the message must name, the message.
struct Tried {
    class: String,
    input: String,
    names: String,
    message: String,
}

fn row(rows: &mut Vec<Tried>, class: &str, input: &str, names: &str, message: String) {
    let message = message.replace(&format!("{}/", root().display()), "<root>/");
    assert!(
        message.contains(names),
        "{class}: the message does not name {names}: {message}"
    );
    rows.push(Tried {
        class: class.into(),
        input: input.into(),
        names: names.into(),
        message,
    });
}

fn cell(s: &str) -> String {
    let html = s
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "&#124;")
        .replace('`', "&#96;");
    format!("<code>{}</code>", html.trim_end().replace('\n', "<br>"))
}

fn table(out: &mut String, rows: &[Tried]) {
    out.push_str("| bad input | example | names | message |\n| --- | --- | --- | --- |\n");
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            r.class,
            cell(&r.input),
            cell(&r.names),
            cell(&r.message)
        ));
    }
    out.push('\n');
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn b64_decode(s: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in s.bytes().filter(|c| *c != b'=') {
        let v = B64.iter().position(|b| *b == c).expect("base64") as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

fn b64_encode(data: &[u8]) -> String {
    let mut out = String::new();
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The built-in chain as a .gltf, with the first element of `attribute` of vertex 0 overwritten.
fn broken_gltf(path: &Path, attribute: &str, value: f32) {
    skinproof::model::write_chain_gltf(path, 3, 1.0, 8, 0.2).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let uri = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, data) = uri.split_once(',').unwrap();
    let mut bytes = b64_decode(data);
    let acc = json["meshes"][0]["primitives"][0]["attributes"][attribute]
        .as_u64()
        .unwrap() as usize;
    let a = &json["accessors"][acc];
    let view = &json["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    let at =
        (view["byteOffset"].as_u64().unwrap_or(0) + a["byteOffset"].as_u64().unwrap_or(0)) as usize;
    match a["componentType"].as_u64().unwrap() {
        5126 => bytes[at..at + 4].copy_from_slice(&value.to_le_bytes()),
        5121 => bytes[at] = value as u8,
        5123 => bytes[at..at + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        t => panic!("component type {t}"),
    }
    json["buffers"][0]["uri"] = format!("{head},{}", b64_encode(&bytes)).into();
    std::fs::write(path, serde_json::to_string(&json).unwrap()).unwrap();
}

/// The case-file table: (class, YAML, what the message must name).
const CASE_INPUTS: &[(&str, &str, &str)] = &[
    ("malformed YAML", "skeleton:\n  joints: 3\n mesh: [\n", "cases/example.yaml:3:"),
    ("tab indentation", "skeleton:\n\tjoints: 3\nmesh:\n  vertices: 3\n", "cases/example.yaml:2:"),
    ("wrong type", "skeleton:\n  joints: many\nmesh:\n  vertices: 3\n", "skeleton.joints"),
    ("wrong type (float for an integer)", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender: { width: 1e3 }\n", "render.width"),
    ("negative size", "skeleton: { joints: 3 }\nmesh: { vertices: -1 }\n", "mesh.vertices"),
    ("unknown field", "skeleton:\n  joints: 3\n  colour: red\nmesh:\n  vertices: 3\n", "colour"),
    ("unknown field in a list item", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    angle: 30\n", "pose[0]"),
    ("unknown enum value", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden: { metric: ssim }\n", "golden.metric"),
    ("missing field", "skeleton:\n  segment_length: 1\nmesh:\n  vertices: 3\n", "joints"),
    ("missing section", "skeleton:\n  joints: 3\n", "mesh"),
    ("missing sections", "description: nothing else\n", "skeleton"),
    ("duplicate key", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nskeleton: { joints: 4 }\n", "cases/example.yaml:3:"),
    ("two documents", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\n---\nmesh: { vertices: 4 }\n", "cases/example.yaml:3:"),
    ("empty file", "", "skeleton"),
    ("not a mapping", "- skeleton\n- mesh\n", "cases/example.yaml:1:"),
    ("joint count 0", "skeleton:\n  joints: 0\nmesh:\n  vertices: 3\n", "skeleton.joints"),
    ("joint count too large", "skeleton:\n  joints: 70000\nmesh:\n  vertices: 3\n", "skeleton.joints"),
    ("joint index out of range", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n  - joint: 7\n", "pose[1].joint"),
    ("negative joint index", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: -1\n", "pose[0].joint"),
    ("influences out of range", "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  influences: 5\n", "mesh.influences"),
    ("NaN in a pose", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    degrees: .nan\n", "pose[0].degrees"),
    ("infinity in a pose", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    translation: [0, .inf, 0]\n", "pose[0].translation"),
    ("beyond f32 in a pose", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    translation: [1e39, 0, 0]\n", "pose[0].translation"),
    ("zero axis", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    axis: [0, 0, 0]\n", "pose[0].axis"),
    ("zero scale", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\npose:\n  - joint: 1\n    scale: [1, 0, 1]\n", "pose[0].scale"),
    ("NaN tolerance", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ntolerance:\n  max_abs_error: .nan\n", "tolerance.max_abs_error"),
    ("infinite tolerance", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ntolerance:\n  min_displacement: .inf\n", "tolerance.min_displacement"),
    ("zero tolerance", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ntolerance:\n  max_relative_error: 0\n", "tolerance.max_relative_error"),
    ("zero segment length", "skeleton:\n  joints: 3\n  segment_length: 0\nmesh:\n  vertices: 3\n", "skeleton.segment_length"),
    ("segment length below f32", "skeleton:\n  joints: 3\n  segment_length: 1e-50\nmesh:\n  vertices: 3\n", "skeleton.segment_length"),
    ("chain longer than f32", "skeleton:\n  joints: 65536\n  segment_length: 1e35\nmesh:\n  vertices: 3\n", "skeleton.segment_length"),
    ("negative strip width", "skeleton:\n  joints: 3\nmesh:\n  vertices: 3\n  width: -0.5\n", "mesh.width"),
    ("zero render size", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  width: 0\n", "render.width"),
    ("render size too large", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  height: 9000\n", "render.height"),
    ("negative view", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  view: { scale: 1, offset_y: 0, half_width: -1 }\n", "render.view.half_width"),
    ("NaN view", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  view: { scale: .nan, offset_y: 0, half_width: 1 }\n", "render.view.scale"),
    ("coverage range reversed", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nrender:\n  bind_coverage: [900, 700]\n", "render.bind_coverage"),
    ("vertex count 0", "skeleton:\n  joints: 3\nmesh:\n  vertices: 0\n", "mesh.vertices"),
    ("absurd vertex count", "skeleton:\n  joints: 3\nmesh:\n  vertices: 20000000\n", "mesh.vertices"),
    ("vertex count beyond u64", "skeleton:\n  joints: 3\nmesh:\n  vertices: 99999999999999999999999\n", "mesh.vertices"),
    ("missing glTF file", "model:\n  path: assets/missing.glb\n", "model.path"),
    ("not a glTF file", "model:\n  path: assets/robot.obj\n  if_missing: skip\n", "model.path"),
    ("glTF path is a folder", "model:\n  path: ../target/model.gltf\n", "model.path"),
    ("model and chain together", "model:\n  path: a.glb\n  if_missing: skip\nskeleton: { joints: 3 }\n", "skeleton"),
    ("negative animation time", "model:\n  path: a.glb\n  if_missing: skip\n  time: -1\n", "model.time"),
    ("unknown if_missing", "model:\n  path: a.glb\n  if_missing: ignore\n", "model.if_missing"),
    ("unknown check in expect", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nexpect:\n  - check: posed_matches\n    status: fail\n    reason: x\n", "expect[0].check"),
    ("expectation without reason", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nexpect:\n  - check: posed_matches_cpu\n    status: fail\n", "reason"),
    ("backend alias that never matches", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\nexpect:\n  - backend: vk\n    check: posed_matches_cpu\n    status: fail\n    reason: x\n", "expect[0].backend"),
    ("golden name with a path", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  name: ../other\n", "golden.name"),
    ("channel tolerance beyond u8", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  channel_tolerance: 300\n", "golden.channel_tolerance"),
    ("percentile beyond 1", "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\ngolden:\n  flip_percentile: 1.5\n", "golden.flip_percentile"),
];

/// Shader edits: (class, the default shader's text, its replacement, what the message must name).
const SHADER_EDITS: &[(&str, &str, &str, &str)] = &[
    (
        "does not parse",
        "let i = id.x;",
        "let i = id.x",
        "shaders/broken.wgsl:",
    ),
    (
        "lacks an entry point",
        "fn fs_skin(",
        "fn fs_other(",
        "`fs_skin`",
    ),
    (
        "wrong stage",
        "@compute @workgroup_size(64)\nfn skin_compute",
        "@vertex\nfn skin_compute",
        "`skin_compute`",
    ),
    (
        "wrong workgroup size",
        "@workgroup_size(64)",
        "@workgroup_size(32)",
        "`skin_compute`",
    ),
    (
        "workgroup size from an override without a default",
        "@compute @workgroup_size(64)",
        "override WG: u32;\n@compute @workgroup_size(WG)",
        "`skin_compute`",
    ),
    (
        "binding 0: wrong type",
        "palette: array<mat4x4<f32>>",
        "palette: array<mat3x3<f32>>",
        "binding 0",
    ),
    (
        "binding 1: wrong type",
        "positions: array<vec4<f32>>",
        "positions: array<vec3<f32>>",
        "binding 1",
    ),
    (
        "binding 2: wrong type",
        "joints: array<vec4<u32>>",
        "joints: array<vec4<i32>>",
        "binding 2",
    ),
    (
        "binding 3: fixed-size array",
        "weights: array<vec4<f32>>",
        "weights: array<vec4<f32>, 4>",
        "binding 3",
    ),
    (
        "binding 3: writable",
        "var<storage, read> weights",
        "var<storage, read_write> weights",
        "binding 3",
    ),
    (
        "binding 4: wrong type",
        "skinned: array<vec4<f32>>",
        "skinned: array<vec4<f32>, 64>",
        "binding 4",
    ),
    (
        "binding 5: count not u32",
        "    count: u32,\n",
        "    count: f32,\n",
        "binding 5",
    ),
    (
        "binding 6: a field of the wrong type",
        "    offset_y: f32,\n",
        "    offset_y: u32,\n",
        "binding 6",
    ),
    (
        "binding 6: storage",
        "var<uniform> view",
        "var<storage, read> view",
        "binding 6",
    ),
    (
        "binding missing",
        "@group(0) @binding(5)",
        "@group(0) @binding(7)",
        "binding 5",
    ),
    (
        "vs_skin input wrong type",
        "@location(1) joint: vec4<u32>",
        "@location(1) joint: vec4<f32>",
        "@location(1)",
    ),
    (
        "vs_skin input missing",
        "@location(2) weight: vec4<f32>",
        "@location(3) weight: vec4<f32>",
        "@location(2)",
    ),
    (
        "fs_skin output wrong type",
        "-> @location(0) vec4<f32> {\n    return vec4<f32>(tint, 1.0 - tint, 0.5, 1.0);",
        "-> @location(0) vec4<u32> {\n    return vec4<u32>(1u);",
        "`fs_skin`",
    ),
];

#[test]
#[ignore = "writes docs/bad-inputs.md: cargo test --release --test fuzz -- --ignored bad_inputs_doc"]
fn bad_inputs_doc() {
    let mut out = String::from(
        "# Bad inputs and the messages they get\n\n\
         Generated by `cargo test --release --test fuzz -- --ignored bad_inputs_doc` from the messages \
         the code prints; do not edit by hand. `<root>/` stands for the project folder. A bad case file \
         fails only its own `case_loads` trial, a bad model or golden only that case's trials, a bad \
         shader the `shader::validates` and `shader_builds` trials, and a bad `SKINPROOF_*` setting \
         the single `harness::environment` trial (nothing else runs on a silent default).\n\n\
         The same classes are unit-tested in `harness/case/`, `harness/shader.rs` and \
         `harness/config.rs`; `harness/fuzz.rs` fuzzes the case parser and validator.\n\n\
         ## Case files (`cases/*.yaml`)\n\n\
         Each example is the whole file `cases/example.yaml` (`\\n` is a line break).\n\n",
    );
    let mut rows = Vec::new();
    let file = Path::new("cases/example.yaml");
    // A folder named like a model, for the "is a folder" row.
    std::fs::create_dir_all(root().join("target/model.gltf")).unwrap();
    for (class, yaml, names) in CASE_INPUTS {
        let msg = Case::parse(file, yaml)
            .err()
            .unwrap_or_else(|| panic!("{class}: accepted"))
            .to_string();
        assert!(msg.starts_with("cases/example.yaml:"), "{msg}");
        row(
            &mut rows,
            class,
            &yaml.escape_debug().to_string(),
            names,
            msg,
        );
    }
    let msg = Case::parse(
        Path::new("cases/my case.yaml"),
        "skeleton: { joints: 3 }\nmesh: { vertices: 3 }\n",
    )
    .unwrap_err()
    .to_string();
    row(
        &mut rows,
        "bad file name",
        "cases/my case.yaml",
        "name",
        msg,
    );
    table(&mut out, &rows);

    out.push_str("## glTF models\n\nThe built-in chain written as glTF (`skinproof::model::write_chain_gltf`), then one value of vertex 0 overwritten; the message comes from `skinproof::model::load`.\n\n");
    let scratch = root().join("target").join("bad-inputs");
    let _ = std::fs::remove_dir_all(&scratch);
    let cases = scratch.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    let mut rows = Vec::new();
    let weights = cases.join("bad_weights.gltf");
    broken_gltf(&weights, "WEIGHTS_0", 0.25);
    let msg = skinproof::model::load(&weights, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "weights that do not sum to 1",
        "WEIGHTS_0 of vertex 0: [0.25, 0, 0, 0]",
        "WEIGHTS_0",
        msg,
    );
    let joints = cases.join("bad_joints.gltf");
    broken_gltf(&joints, "JOINTS_0", 200.0);
    let msg = skinproof::model::load(&joints, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "joint index out of range",
        "JOINTS_0 of vertex 0: [200, ...] (3 joints)",
        "JOINTS_0",
        msg,
    );
    let garbage = cases.join("garbage.glb");
    std::fs::write(&garbage, b"not a glb").unwrap();
    let msg = skinproof::model::load(&garbage, None)
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "not a glTF file",
        "garbage.glb: `not a glb`",
        "garbage.glb",
        msg,
    );
    table(&mut out, &rows);

    out.push_str("## Shaders (`SKINPROOF_SHADER`)\n\nEach example is one edit of `shaders/skinning.wgsl`, validated as `shaders/broken.wgsl`.\n\n");
    let source = std::fs::read_to_string(root().join("shaders/skinning.wgsl")).unwrap();
    let mut rows = Vec::new();
    for (class, from, to, names) in SHADER_EDITS {
        assert!(
            source.contains(from),
            "{class}: the shader no longer has `{from}`"
        );
        let shader = skinproof::shader::Shader {
            path: "shaders/broken.wgsl".into(),
            source: source.replacen(from, to, 1),
        };
        let msg = shader
            .validate()
            .err()
            .unwrap_or_else(|| panic!("{class}: accepted"))
            .to_string();
        assert!(msg.contains("shaders/broken.wgsl"), "{msg}");
        row(
            &mut rows,
            class,
            &format!("{from} -> {to}").escape_debug().to_string(),
            names,
            msg,
        );
    }
    let msg = skinproof::shader::Shader::load(Path::new("shaders/missing.wgsl"))
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "missing file",
        "shaders/missing.wgsl",
        "shaders/missing.wgsl",
        msg,
    );
    table(&mut out, &rows);

    out.push_str("## Settings (`SKINPROOF_*`)\n\nEach example is one variable set for `cargo test --release`; the message fails the `harness::environment` trial.\n\n");
    let mut rows = Vec::new();
    // config's unit tests check that every known variable has a bad value here.
    for (k, v) in skinproof::config::BAD_VALUES {
        let vars = vec![(k.to_string(), v.to_string())];
        let msg = skinproof::config::Config::from_vars(root(), vars).unwrap_err();
        row(&mut rows, k, &format!("{k}={v}"), k, msg);
    }
    let vars = vec![
        ("SKINPROOF_BLESS".to_string(), "new".to_string()),
        ("CI".to_string(), "true".to_string()),
    ];
    let msg = skinproof::config::Config::from_vars(root(), vars).unwrap_err();
    row(
        &mut rows,
        "blessing in CI",
        "SKINPROOF_BLESS=new CI=true",
        "SKINPROOF_BLESS",
        msg,
    );
    table(&mut out, &rows);

    // Goldens and models at run time: a whole run on the adapters, to show which trials fail.
    out.push_str("## Goldens and models at run time\n\n");
    let goldens = scratch.join("golden");
    std::fs::create_dir_all(&goldens).unwrap();
    let bend = std::fs::read_to_string(root().join("cases/bend_two_joints.yaml")).unwrap();
    std::fs::write(cases.join("no_golden.yaml"), &bend).unwrap();
    std::fs::write(cases.join("corrupt_golden.yaml"), &bend).unwrap();
    std::fs::write(
        goldens.join("corrupt_golden.png"),
        b"\x89PNG\r\n\x1a\nnot really",
    )
    .unwrap();
    std::fs::write(
        cases.join("weights_model.yaml"),
        "model:\n  path: bad_weights.gltf\n",
    )
    .unwrap();
    std::fs::write(
        cases.join("optional_model.yaml"),
        "model:\n  path: missing.glb\n  if_missing: skip\n",
    )
    .unwrap();
    let mut rows = Vec::new();
    let msg = skinproof::golden::load(&goldens.join("corrupt_golden.png"))
        .unwrap_err()
        .to_string();
    row(
        &mut rows,
        "corrupt PNG golden (loading it)",
        "golden/corrupt_golden.png: `\\x89PNG\\r\\n\\x1a\\nnot really`",
        "corrupt_golden.png",
        msg,
    );
    let vars = vec![("SKINPROOF_CASES".to_string(), cases.display().to_string())];
    let mut config = skinproof::config::Config::from_vars(root(), vars).unwrap();
    config.goldens = goldens.clone();
    config.reports = scratch.join("reports");
    let suite = skinproof::suite::Suite::discover(config);
    if let Some(reason) = &suite.no_adapter {
        out.push_str(&format!("Not run here: {reason}\n"));
    } else {
        suite.run_all();
        let report = suite.report.lock().unwrap().clone();
        let adapter = report
            .rows
            .first()
            .map(|r| r.adapter.clone())
            .unwrap_or_default();
        out.push_str(&format!(
            "A run with `SKINPROOF_CASES` set to a folder of these cases (and the glTF files above), on `{adapter}`: \
             each case's own rows, the other cases unaffected.\n\n"
        ));
        let find = |case: &str, check: &str| {
            report
                .rows
                .iter()
                .find(|r| r.case == case && r.check == check && r.adapter == adapter)
                .map(|r| format!("{}: {}", r.outcome.status, r.outcome.message))
                .unwrap_or_else(|| panic!("no row {case}::{check}"))
        };
        row(
            &mut rows,
            "missing golden",
            "no_golden.yaml (bend_two_joints), no golden/no_golden.png",
            "no_golden.png",
            find("no_golden", "render_matches_golden"),
        );
        row(
            &mut rows,
            "corrupt PNG golden (in a run)",
            "corrupt_golden.yaml (bend_two_joints)",
            "corrupt_golden.png",
            find("corrupt_golden", "render_matches_golden"),
        );
        row(
            &mut rows,
            "model weights that do not sum to 1",
            "weights_model.yaml: `model: { path: bad_weights.gltf }`",
            "bad_weights.gltf",
            find("weights_model", "compute_matches_cpu"),
        );
        row(
            &mut rows,
            "optional model missing",
            "optional_model.yaml: `model: { path: missing.glb, if_missing: skip }`",
            "missing.glb",
            find("optional_model", "compute_matches_cpu"),
        );
        let others_pass = report
            .rows
            .iter()
            .filter(|r| r.case == "no_golden" || r.case == "corrupt_golden")
            .filter(|r| r.check != "render_matches_golden")
            .all(|r| !r.outcome.status.fails());
        assert!(others_pass, "{:#?}", report.rows);
    }
    table(&mut out, &rows);
    std::fs::create_dir_all(root().join("docs")).unwrap();
    std::fs::write(root().join("docs/bad-inputs.md"), out).unwrap();
}
