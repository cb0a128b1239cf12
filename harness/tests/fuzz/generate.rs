//! Generated cases: a tree of values, each scalar valid or not, written in block or flow style.

use proptest::prelude::*;

#[derive(Clone, Debug)]
pub(crate) enum Node {
    /// YAML text of a scalar, and whether the value is valid for its field.
    Scalar(String, bool),
    Map(Vec<(String, Node)>),
    Seq(Vec<Node>),
}

impl Node {
    pub(crate) fn map(entries: Vec<(&str, Node)>) -> Node {
        Node::Map(
            entries
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    /// Field paths (`pose[1].axis`) of the invalid scalars.
    pub(crate) fn invalid(&self, at: &str, out: &mut Vec<String>) {
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

pub(crate) fn ok(s: String) -> Node {
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
                // Names and aliases in any case, as WGPU_BACKEND reads them.
                prop::sample::select(vec![
                    "vulkan", "gl", "metal", "dx12", "GL", "Vulkan", "vk", "GLES", " gl",
                ]),
                prop::sample::select(vec!["vulcan", "", "vulkan,gl"]),
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
        prop_oneof![1i64..=512, Just(4096)],
        prop::sample::select(vec![0i64, 4097, 100_000, -1, 4_294_967_296]),
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
                pick(1usize..=16, prop::sample::select(vec![0usize, 17, 100]), |v| {
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
            // A clip without a time is refused (the clip would be ignored): the animation is invalid.
            let timed = rest.iter().any(|(k, _)| k == "time");
            m.extend(rest.into_iter().map(|(k, v)| match v {
                Node::Scalar(text, _) if k == "animation" && !timed => {
                    (k, Node::Scalar(text, false))
                }
                v => (k, v),
            }));
            (vec![("model".to_string(), Node::Map(m))], None)
        });
    prop_oneof![5 => chain, 1 => model].boxed()
}

/// A whole case: its tree and the style choices that write it.
pub(crate) fn generated_case() -> impl Strategy<Value = (Node, Vec<bool>, u8)> {
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
pub(crate) fn write(node: &Node, style: &[bool], mode: u8) -> String {
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
