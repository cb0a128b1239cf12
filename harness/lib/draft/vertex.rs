//! The vertex stage's part of a draft: its fragment stage, attributes by type and name, skinned
//! normal and tangent outputs, the camera and a skinning function.

use std::fmt::Write as _;

use naga::{AddressSpace, Module, ScalarKind, ShaderStage, TypeInner};

use super::read::*;
use super::Writer;

/// The fragment stage a draft names: its entry point, kept (its index) where the harness can bind
/// everything it reads, else left out for the harness's own with why.
pub(super) struct Fragment {
    pub(super) name: String,
    pub(super) kept: Option<usize>,
    /// Why it is left out, where it is.
    pub(super) why_not: String,
}

/// The vertex entry point a draft describes, and the fragment stage beside it.
pub(super) struct Stage<'a> {
    pub(super) index: usize,
    pub(super) fragment: Option<&'a Fragment>,
}

/// The shader's first fragment entry point: kept unless it reads a texture the harness cannot
/// bind, its colour's alpha is no constant above 0 (coverage is counted by alpha, and an alpha the
/// harness's zero fills reach, a tint, a material's texture, would draw nothing), or it may
/// discard (an alpha test the zeros fail everywhere).
pub(super) fn fragment_stage(module: &Module, info: &naga::valid::ModuleInfo) -> Option<Fragment> {
    let (i, ep) =
        (module.entry_points.iter().enumerate()).find(|(_, e)| e.stage == ShaderStage::Fragment)?;
    let unbound: Vec<String> = (used_globals(module, info, &[i]).into_iter())
        .filter(|g| g.space == AddressSpace::Handle)
        .filter(|g| crate::resource::Resource::of(&module.types, g.handle).is_err())
        .map(|g| format!("`{}`", g.name))
        .collect();
    let why_not = if !unbound.is_empty() {
        format!(
            "it reads {}, which the harness cannot bind",
            unbound.join(", ")
        )
    } else if !opaque(&ep.function) {
        "it returns a colour whose alpha is no constant above 0, which the harness's zero fills may make transparent (coverage is counted by alpha)".into()
    } else if discards(module, ep) {
        "it may discard fragments, which the harness's zero fills (its textures' zeros too) may make it do for every one (coverage is what is compared)".into()
    } else {
        String::new()
    };
    Some(Fragment {
        name: ep.name.clone(),
        kept: why_not.is_empty().then_some(i),
        why_not,
    })
}

/// Whether the entry point, or a function it calls, has a `discard`.
fn discards(module: &Module, ep: &naga::EntryPoint) -> bool {
    super::reachable(module, &[ep]).any(|f| {
        let mut found = false;
        crate::naga_walk::for_each_statement(&f.body, &mut |st| {
            found |= matches!(st, naga::Statement::Kill);
        });
        found
    })
}

/// Whether every colour a fragment function returns has a constant alpha above 0:
/// `vec4(rgb, 1.0)` or `vec4(1.0)`.
fn opaque(f: &naga::Function) -> bool {
    use naga::Expression as E;
    let positive = |e: naga::Handle<E>| match f.expressions[e] {
        E::Literal(naga::Literal::F32(x)) => x > 0.0,
        E::Literal(naga::Literal::AbstractFloat(x)) => x > 0.0,
        _ => false,
    };
    let mut returns = Vec::new();
    crate::shader::for_each_statement(&f.body, &mut |st| {
        if let naga::Statement::Return { value: Some(v) } = st {
            returns.push(*v);
        }
    });
    !returns.is_empty()
        && returns.iter().all(|&v| match &f.expressions[v] {
            E::Compose { components, .. } => components.last().is_some_and(|&a| positive(a)),
            E::Splat { value, .. } => positive(*value),
            _ => false,
        })
}

/// Which of a vertex stage's inputs hold which attribute (indices into the inputs), and the
/// locations of further influence sets, (joints, weights) each.
struct Picks {
    position: Option<usize>,
    joints: Option<usize>,
    weights: Option<usize>,
    normal: Option<usize>,
    tangent: Option<usize>,
    more: Vec<(u32, u32)>,
    /// How many influences a vertex the joints and weights hold: 4, or the 2 or 3 of a vec2 or
    /// vec3 of weights beside joints of as many.
    lanes: u8,
    /// Whether a second pair of such narrow joints and weights follows (no profile reads it).
    narrow_sets: bool,
    /// Instead of joints and weights: one `vec2<f32>` an influence, (joint index, weight).
    pairs: Vec<usize>,
    /// Whether each of `pairs` is a `vec4<f32>` of two influences.
    wide_pairs: bool,
    /// Whether the weights are a vec3 beside a vec4 of joints: the last implied.
    implied: bool,
}

/// The words of a name, lowercase: split at `_` and where a lowercase letter or digit meets an
/// uppercase one (`bone_w` and `boneW`: bone, w).
pub(super) fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c == '_' {
            prev_lower = false;
            out.push(String::new());
            continue;
        }
        if c.is_uppercase() && prev_lower || out.is_empty() {
            out.push(String::new());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        if let Some(w) = out.last_mut() {
            w.extend(c.to_lowercase());
        }
    }
    out.retain(|w| !w.is_empty());
    out
}

/// Whether an input is named as a normal or a tangent by a short word (GLSL's `a_norm`, `nrm`,
/// `in_tan`), which `named` does not take for fear of `normalized` or `tangible`.
fn short_frame(x: &Input) -> bool {
    words(&x.name)
        .iter()
        .any(|w| ["n", "nrm", "nor", "norm", "nml"].contains(&w.as_str()))
        || tangent_like(x)
}

/// Whether an input is named as a tangent by a short word (`tan`, `tng`, `tgt`).
fn tangent_like(x: &Input) -> bool {
    words(&x.name)
        .iter()
        .any(|w| ["tan", "tng", "tgt"].contains(&w.as_str()))
}

/// The number a name ends in (`a_boneWeight3`: 3; naga writes GLSL's `a_boneWeight3_`), if it
/// ends in one.
fn last_number(name: &str) -> Option<u64> {
    let name = name.trim_end_matches('_');
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    name[name.len() - digits..].parse().ok()
}

fn float(x: &Input, n: u8) -> bool {
    vector(x.ty) == Some((n, ScalarKind::Float))
}

impl Picks {
    /// Each attribute guessed by type and name, an input taken once: the joints an integer
    /// vector named as joints (else any `vec4<u32>`), the weights a `vec4<f32>` named as
    /// weights (or a vec3 or vec2 beside joints of as many: `lanes`), then more pairs of both as
    /// further sets (a second narrow pair flagged, not taken), the position, normal and tangent
    /// by name; none of them one of a matrix's `columns` (indices).
    fn of(inputs: &[Input], columns: &[usize], pairs_ok: bool) -> Picks {
        // A matrix's columns are no attribute of the vertex.
        let mut used: Vec<u32> = columns.iter().map(|&i| inputs[i].location).collect();
        // `boneWeights` names a bone, yet holds weights.
        let named_joints = |x: &Input| named(&x.name, JOINT_WORDS) && !named(&x.name, WEIGHT_WORDS);
        let free = |x: &Input| !used.contains(&x.location);
        // Fewer than 4 a vertex (ThinMatrix's `ivec3` and `vec3`): weights named so in a vec2 or
        // vec3, joints named so in as many, and no vec4 of weights.
        let lanes = (2..=3)
            .find(|&n| {
                let weights = |x: &Input| free(x) && named(&x.name, WEIGHT_WORDS) && float(x, n);
                let joints = |x: &Input| {
                    free(x) && named_joints(x) && vector(x.ty).is_some_and(|v| v.0 == n)
                };
                inputs.iter().any(weights)
                    && inputs.iter().any(joints)
                    && !inputs
                        .iter()
                        .any(|x| named(&x.name, WEIGHT_WORDS) && float(x, 4))
            })
            .unwrap_or(4);
        // A vec4<f32> named as joints and weights both (`boneWeight`; weights alone are not
        // pairs): two influences (joint, weight, joint, weight), as OpenSceneGraph keeps its
        // `boneWeight0` to `boneWeight3`. Those no matrix takes, counted.
        let quad_like =
            |x: &Input| float(x, 4) && named(&x.name, JOINT_WORDS) && named(&x.name, WEIGHT_WORDS);
        let quads = inputs.iter().filter(|x| free(x) && quad_like(x)).count();
        let mut pick = |ok: &dyn Fn(&Input) -> bool| -> Option<usize> {
            let i = (inputs.iter()).position(|x| !used.contains(&x.location) && ok(x))?;
            used.push(inputs[i].location);
            Some(i)
        };
        let joint_like = |x: &Input| {
            named_joints(x)
                && match vector(x.ty) {
                    Some((4, _)) if lanes < 4 => false,
                    Some((n, _)) if n == lanes && lanes < 4 => true,
                    v => matches!(
                        v,
                        Some((4 | 2, ScalarKind::Uint))
                            | Some((4, ScalarKind::Float | ScalarKind::Sint))
                    ),
                }
        };
        let weight_like = |x: &Input| named(&x.name, WEIGHT_WORDS) && float(x, lanes);
        let joints = pick(&joint_like).or_else(|| {
            pick(&|x| matches!(vector(x.ty), Some((4, ScalarKind::Uint | ScalarKind::Sint))))
        });
        // Else a vec4<f32> with a word of its name for weights (`bone_w`, `skinWt`).
        let short_weights = |x: &Input| {
            float(x, 4)
                && words(&x.name)
                    .iter()
                    .any(|w| ["w", "wt", "wts", "wgt", "wgts"].contains(&w.as_str()))
        };
        // Without joints: 1, 2 or 4 such vec4s are the pairs; not where `pairs_ok` is false.
        let mut pairs = Vec::new();
        let wide_pairs = pairs_ok && joints.is_none() && matches!(quads, 1 | 2 | 4);
        if wide_pairs {
            while let Some(i) = pick(&quad_like) {
                pairs.push(i);
            }
        }
        let mut weights = pick(&weight_like).or_else(|| joints.and(pick(&short_weights)));
        // Else three weights named so beside four joints: the last one minus the others.
        let four_joints = joints.is_some_and(|j| vector(inputs[j].ty).is_some_and(|v| v.0 == 4));
        let implied = lanes == 4 && weights.is_none() && four_joints && {
            weights = pick(&|x| named(&x.name, WEIGHT_WORDS) && float(x, 3));
            weights.is_some()
        };
        // Without either: one vec2<f32> an influence named as joints or weights (libGDX's
        // `a_boneWeight0` to `a_boneWeight3`), in the order of their names' last numbers; not
        // where `pairs_ok` is false.
        let pair_like = |x: &Input| {
            float(x, 2) && (named(&x.name, JOINT_WORDS) || named(&x.name, WEIGHT_WORDS))
        };
        let candidates = inputs.iter().filter(|x| pair_like(x)).count();
        if pairs_ok && joints.is_none() && weights.is_none() && candidates > 1 && !wide_pairs {
            while let Some(i) = pick(&pair_like) {
                pairs.push(i);
            }
        }
        pairs.sort_by_key(|&i| (last_number(&inputs[i].name), inputs[i].location));
        // Further sets of 4 (JOINTS_1 and WEIGHTS_1): more inputs of each kind, in order. A
        // second vec3 pair is no set of 4: left to do.
        let mut more = Vec::new();
        let mut narrow_sets = false;
        while more.len() < 3 {
            let (Some(j), Some(k)) = (pick(&joint_like), pick(&weight_like)) else {
                break;
            };
            if lanes < 4 {
                narrow_sets = true;
                break;
            }
            more.push((inputs[j].location, inputs[k].location));
        }
        let other = ["normal", "tangent", "binormal", "color", "colour"];
        let position =
            pick(&|x| named(&x.name, &["pos"]) && (float(x, 3) || float(x, 4) || float(x, 2)))
                // Else a vec3 or vec4 named the vertex by a word of its own (Panda3D's
                // `p3d_Vertex`, a vec4), not another stream of it (`vertex_color`).
                .or_else(|| {
                    pick(&|x| {
                        words(&x.name).iter().any(|w| w == "vertex")
                            && !named(&x.name, &other)
                            && (float(x, 3) || float(x, 4))
                    })
                })
                // Else the first vec3<f32> not named as another stream (`p`, `vertex`).
                .or_else(|| {
                    // A texture coordinate by its words (`uv0`, `texcoord`), not `vertex`.
                    let coordinate = |x: &Input| {
                        words(&x.name)
                            .iter()
                            .any(|w| w.starts_with("uv") || w.starts_with("tex"))
                    };
                    pick(&|x| {
                        float(x, 3) && !named(&x.name, &other) && !coordinate(x) && !short_frame(x)
                    })
                });
        // A vec4 only by its name: four components packed wide (sokol's `normal`), w 0.
        let normal = pick(&|x| {
            (float(x, 3) && (named(&x.name, &["normal"]) || short_frame(x) && !tangent_like(x))
                || float(x, 4) && named(&x.name, &["normal"]))
                && !named(&x.name, &["binormal"])
        });
        let tangent = pick(&|x| {
            (float(x, 4) || float(x, 3))
                && (named(&x.name, &["tangent"]) || tangent_like(x))
                && !named(&x.name, &["bitangent"])
        });
        Picks {
            position,
            joints,
            weights,
            normal,
            tangent,
            more,
            lanes,
            narrow_sets,
            pairs,
            wide_pairs,
            implied,
        }
    }

    /// The influence sets the inputs hold.
    fn sets(&self) -> usize {
        1 + self.more.len()
    }

    /// The `location` of joints or weights: one, or a list of one per set.
    fn locations(&self, inputs: &[Input], first: usize, of: fn(&(u32, u32)) -> u32) -> String {
        if self.more.is_empty() {
            return inputs[first].location.to_string();
        }
        let all: Vec<String> = std::iter::once(inputs[first].location)
            .chain(self.more.iter().map(of))
            .map(|l| l.to_string())
            .collect();
        format!("[{}]", all.join(", "))
    }
}

/// The fragment stage's lines: the shader's own, compared by coverage, or the harness's.
fn fragment_lines(fragment: Option<&Fragment>, w: &mut Writer) {
    match fragment {
        Some(f) if f.kept.is_some() => w.line(format!(
            "  fragment: {}   # its own colours: compared with the goldens by coverage",
            f.name
        )),
        Some(f) => w.line(format!(
            "  # fragment stage `{}` left out: {}; the harness draws with its own, in one colour",
            f.name, f.why_not
        )),
        None => w.line("  # no fragment entry point: the harness adds one, drawing in one colour"),
    }
    w.line("  colour: any");
}

/// What the stage reads from storage by vertex index instead of attributes: every field of its
/// vertices, or its joints and weights.
#[derive(Clone, Copy)]
struct Stored {
    vertices: bool,
    influences: bool,
}

/// The attributes' lines, each with the input it is and why; the required ones a `TODO` where
/// no input is named so (none where the stage reads them from storage).
fn attribute_lines(inputs: &[Input], p: &Picks, stored: Stored, w: &mut Writer) {
    let pulls = stored.vertices;
    let held = stored.vertices || stored.influences || !p.pairs.is_empty();
    match p.position {
        Some(i) => {
            let (format, why) = match vector(inputs[i].ty) {
                Some((2, _)) => (
                    "vec2",
                    ", x and y alone: a case whose mesh leaves z = 0 fails `case_loads`; list such cases under `expect`",
                ),
                _ => ("vec3", ""),
            };
            w.line(format!(
                "  position: {{ location: {}, format: {format} }}   # `{}`{why}",
                inputs[i].location, inputs[i].name
            ));
        }
        None if !pulls => w.todo("no input named as a position: give `vertex.position`"),
        None => {}
    }
    if let (Some(&first), Some(&last)) = (p.pairs.first(), p.pairs.last()) {
        let locations: Vec<String> = (p.pairs.iter())
            .map(|&i| inputs[i].location.to_string())
            .collect();
        let (format, what) = match p.wide_pairs {
            true => (
                ", format: vec4",
                "one vec4<f32> two influences, (joint, weight, joint, weight)",
            ),
            false => ("", "one vec2<f32> an influence, (joint index, weight)"),
        };
        let named = match first == last {
            true => format!("`{}`", inputs[first].name),
            false => format!("`{}` to `{}`", inputs[first].name, inputs[last].name),
        };
        w.line(format!(
            "  pairs: {{ location: [{}]{format} }}   # {named}: {what}",
            locations.join(", "),
        ));
    }
    match p.joints {
        Some(i) => {
            let (format, why) = match vector(inputs[i].ty) {
                Some((2, _)) if p.lanes == 4 => ("u16x4", "vec2<u32>: two u16 indices a word".into()),
                Some((_, ScalarKind::Float)) => ("f32x4", "float indices".into()),
                Some((_, ScalarKind::Sint)) => {
                    ("i32x4", "signed indices (-1 an unused influence)".into())
                }
                v => (
                    "u16x4",
                    format!(
                        "vec{}<u32> reads u8x4, u16x4 or u32x4: say how your vertex buffer stores them",
                        v.map_or(4, |v| v.0)
                    ),
                ),
            };
            w.line(format!(
                "  joints: {{ location: {}, format: {format} }}   # `{}`, {why}",
                p.locations(inputs, i, |l| l.0),
                inputs[i].name
            ));
        }
        None if !held => {
            w.todo("no integer vec4 input or one named as joints: give `vertex.joints`")
        }
        None => {}
    }
    match p.weights {
        Some(i) if p.implied => w.line(format!(
            "  weights: {{ location: {}, format: f32x4 }}   # `{}`, a vec3 beside four joints: the fourth weight one minus the others (`last_weight: implied`)",
            p.locations(inputs, i, |l| l.1),
            inputs[i].name
        )),
        Some(i) => w.line(format!(
            "  weights: {{ location: {}, format: f32x4 }}   # `{}`; unorm8x4 or unorm16x4 where the buffer stores them so",
            p.locations(inputs, i, |l| l.1),
            inputs[i].name
        )),
        None if !held => w.todo("no vec4<f32> input named as weights: give `vertex.weights`"),
        None => {}
    }
    if p.narrow_sets {
        w.todo(format!(
            "a second pair of vec{} joints and weights follows: influence sets of fewer than 4 are not supported (the harness would feed it zeros)",
            p.lanes
        ));
    }
    if let Some(i) = p.normal {
        let format = if float(&inputs[i], 4) {
            ", format: vec4"
        } else {
            ""
        };
        w.line(format!(
            "  normal: {{ location: {}{format} }}   # `{}`",
            inputs[i].location, inputs[i].name
        ));
    }
    if let Some(i) = p.tangent {
        let format = if float(&inputs[i], 3) {
            ", format: vec3"
        } else {
            ""
        };
        w.line(format!(
            "  tangent: {{ location: {}{format} }}   # `{}`",
            inputs[i].location, inputs[i].name
        ));
    }
}

/// The inputs that hold a matrix's columns (an engine's per-instance model matrix): those the
/// entry point composes into a matrix, its columns in order ([`composed_columns`]), and 2 to 4
/// float vectors of one width named as a matrix or a transform alike but for their last digit, 0
/// up (`model_matrix_0` to `model_matrix_3`); each group's indices in order.
fn matrix_columns(module: &Module, ep: &naga::EntryPoint, inputs: &[Input]) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = (composed_columns(module, ep).into_iter())
        .filter_map(|locations| {
            (locations.iter())
                .map(|&l| inputs.iter().position(|x| x.location == l))
                .collect()
        })
        .collect();
    for group in named_columns(inputs) {
        if !groups.iter().any(|g| g.iter().any(|i| group.contains(i))) {
            groups.push(group);
        }
    }
    groups
}

/// The locations of the inputs the entry point composes into a float matrix as its columns
/// (`mat4x4<f32>(instance.mm0, instance.mm1, instance.mm2, instance.mm3)`), each matrix's in
/// column order: a matrix of the engine's that zeros would make singular.
fn composed_columns(module: &Module, ep: &naga::EntryPoint) -> Vec<Vec<u32>> {
    use naga::{Binding, Expression};
    let f = &ep.function;
    let location = |b: &Option<Binding>| match b {
        Some(Binding::Location { location, .. }) => Some(*location),
        _ => None,
    };
    // The input an expression is: an argument with a location, or a located member of one.
    let input = |h: naga::Handle<Expression>| match f.expressions[h] {
        Expression::FunctionArgument(a) => location(&f.arguments[a as usize].binding),
        Expression::AccessIndex { base, index } => match f.expressions[base] {
            Expression::FunctionArgument(a) => {
                match &module.types[f.arguments[a as usize].ty].inner {
                    TypeInner::Struct { members, .. } => {
                        location(&members.get(index as usize)?.binding)
                    }
                    _ => None,
                }
            }
            _ => None,
        },
        _ => None,
    };
    (f.expressions.iter())
        .filter_map(|(_, e)| match e {
            Expression::Compose { ty, components } => {
                let float = matches!(module.types[*ty].inner, TypeInner::Matrix { scalar, .. } if scalar.kind == ScalarKind::Float);
                let columns: Option<Vec<u32>> = components.iter().map(|&c| input(c)).collect();
                columns.filter(|c| float && c.len() >= 2)
            }
            _ => None,
        })
        .collect()
}

/// The inputs named as a matrix's columns: 2 to 4 float vectors of one width, named as a matrix
/// or a transform alike but for their last digit, 0 up.
fn named_columns(inputs: &[Input]) -> Vec<Vec<usize>> {
    // Each input's stem (its name without the last digit and separators) and digit.
    let split = |x: &Input| -> Option<(String, u32)> {
        let digit = x.name.chars().last()?.to_digit(10)?;
        let stem = x.name[..x.name.len() - 1].trim_end_matches(['_', '.']);
        let matrix = named(
            stem,
            &["mat", "model", "world", "transform", "xform", "instance"],
        );
        (matrix && !stem.ends_with(|c: char| c.is_ascii_digit())).then(|| (stem.to_string(), digit))
    };
    let mut groups = Vec::new();
    for x in inputs {
        let Some((stem, 0)) = split(x) else { continue };
        let Some((width, ScalarKind::Float)) = vector(x.ty) else {
            continue;
        };
        let column = |k: u32| {
            (inputs.iter()).position(|y| {
                split(y) == Some((stem.clone(), k))
                    && vector(y.ty) == Some((width, ScalarKind::Float))
            })
        };
        let group: Vec<usize> = (0..width as u32).map_while(column).collect();
        if group.len() >= 2 {
            groups.push(group);
        }
    }
    groups
}

/// `inputs`: the identity's columns for each group of [`matrix_columns`], which zeros would make
/// singular.
fn matrix_column_lines(inputs: &[Input], groups: &[Vec<usize>], w: &mut Writer) {
    if groups.is_empty() {
        return;
    }
    let mut values = Vec::new();
    for group in groups {
        for (k, &i) in group.iter().enumerate() {
            let width = vector(inputs[i].ty).map_or(0, |v| v.0 as usize);
            let column: Vec<&str> = (0..width).map(|r| if r == k { "1" } else { "0" }).collect();
            values.push((inputs[i].location, column.join(", ")));
        }
    }
    values.sort_by_key(|v| v.0);
    let each: Vec<String> = (values.iter())
        .map(|(l, v)| format!("{l}: [{v}]"))
        .collect();
    let names: Vec<String> = (groups.iter())
        .map(|g| {
            let name = |i: &usize| &inputs[*i].name;
            format!("`{}` to `{}`", name(&g[0]), name(&g[g.len() - 1]))
        })
        .collect();
    w.line(format!(
        "  # {} hold a matrix's columns (per instance, as an engine's model matrix): the identity's, not zeros",
        names.join(" and ")
    ));
    w.line(format!("  inputs: {{ {} }}", each.join(", ")));
}

/// The skinned normal and tangent outputs: an output named as one, beside its source attribute,
/// unless the entry point returns the source unchanged there or the output does not depend on
/// the palette (never written, or moved by something else); else the one output of the source's
/// width that carries the source moved by the palette, and not the other direction (libsgd's
/// normal in the third column of its `tanMatrix`). Returns the outputs drafted that the stage
/// does not renormalise (each with whether it is the tangent), and which of the two it drafted.
fn frame_output_lines(
    module: &Module,
    ep: &naga::EntryPoint,
    (inputs, p, pulled): (&[Input], &Picks, &PulledFrames),
    palette: Option<&Global>,
    w: &mut Writer,
) -> (Vec<(String, bool)>, [bool; 2]) {
    let mut unnormalised = Vec::new();
    // Whether the skinned normal, and the skinned tangent, are drafted.
    let mut drafted = [false; 2];
    let outputs = vertex_outputs(module, ep);
    let flow = palette
        .and_then(|g| super::palette_target(module, g))
        .map(|(palette, member)| {
            let sources = super::flow::Sources {
                palette,
                member,
                normal: p.normal.map(|i| inputs[i].location),
                tangent: p.tangent.map(|i| inputs[i].location),
                pulled: [
                    pulled.normal.map(|n| n.buffer),
                    pulled.tangent.map(|t| t.buffer),
                ],
            };
            super::flow::outputs(module, ep, &sources)
        });
    // What an output may depend on; everything where the flow was not traced.
    let depends = |location: u32| {
        flow.as_ref().map_or(u8::MAX, |f| {
            f.iter()
                .find(|o| o.location == location)
                .map_or(0, |o| o.depends)
        })
    };
    let unit = |location: u32| {
        flow.as_ref()
            .is_none_or(|f| f.iter().any(|o| o.location == location && o.unit))
    };
    // Each source as an attribute (an index into `inputs`) or pulled (its width).
    let source =
        |input: Option<usize>, pulled: Option<PulledFrame>| input.map(Ok).or(pulled.map(Err));
    let frames = [
        (
            source(p.normal, pulled.normal),
            "normal",
            super::flow::NORMAL,
            super::flow::TANGENT,
        ),
        (
            source(p.tangent, pulled.tangent),
            "tangent",
            super::flow::TANGENT,
            super::flow::NORMAL,
        ),
    ];
    for (source, what, own, other) in frames {
        let Some(source) = source else {
            continue;
        };
        // A normal out is a vec3; a tangent out as wide as its source (a vec4's w the
        // handedness): another width is not the skinned one the harness compares.
        let want = match (what, source) {
            ("normal", _) => 3,
            (_, Ok(i)) => vector(inputs[i].ty).map_or(4, |v| v.0),
            (_, Err(pulled)) => pulled.width,
        };
        // A pulled source is no input an output may pass through.
        let through = |location: u32| match source {
            Ok(i) => passed_through(module, ep, location, inputs[i].location)
                .then(|| inputs[i].name.clone()),
            Err(_) => None,
        };
        let skinned = |location: u32| {
            let m = depends(location);
            m & super::flow::PALETTE != 0 && m & own != 0
        };
        // A vec3 tangent out of a vec4 source is its direction alone (`format: vec3`).
        let fits = |width: u8| width == want || (what == "tangent" && (want, width) == (4, 3));
        // Not a bitangent (a binormal), which a vec3 also fits and its words name a tangent.
        let other_frame = |n: &str| named(n, &["bitangent", "binormal"]);
        let named_so = (outputs.iter()).find(|(_, n, _)| named(n, &[what]) && !other_frame(n));
        let mut found = None;
        if let Some((location, name, width)) = named_so {
            if !fits(*width) {
                w.line(format!(
                    "  # the output `{name}` is a vec{width}, where a skinned {what} from its source is a vec{want}: not compared"
                ));
            } else if let Some(input) = through(*location) {
                w.line(format!(
                    "  # the output `{name}` is the input `{input}` passed through unskinned: no skinned {what} to compare"
                ));
            } else if !skinned(*location) {
                w.line(format!(
                    "  # the output `{name}` is never written from the source {what} moved by the palette: not its skinned {what}"
                ));
            } else {
                found = Some((*location, format!("the output `{name}`")));
            }
        }
        // An output carries a pulled source's words only where its buffer holds no other vector
        // (a position's would move with the palette too).
        let alone = source.is_ok() || source.is_err_and(|p| p.alone);
        if found.is_none() && flow.is_some() && alone {
            // Not a colour a direction is shown as (sokol's `(n + 1) * 0.5`): no direction.
            let colour = |n: &str| named(n, &["color", "colour"]);
            let carrying: Vec<_> = (outputs.iter())
                .filter(|(l, n, width)| {
                    fits(*width)
                        && skinned(*l)
                        && depends(*l) & other == 0
                        && !other_frame(n)
                        && !colour(n)
                })
                .collect();
            if let [(location, name, _)] = carrying[..] {
                found = Some((
                    *location,
                    format!("the output `{name}` carries the source {what} moved by the palette"),
                ));
            }
        }
        if let Some((location, why)) = found {
            drafted[usize::from(what == "tangent")] = true;
            let width = outputs
                .iter()
                .find(|o| o.0 == location)
                .map_or(want, |o| o.2);
            let (format, why) = if width < want {
                (
                    ", format: vec3",
                    format!("{why} (a vec3, its direction alone: no handedness to compare)"),
                )
            } else {
                ("", why)
            };
            w.line(format!(
                "  skinned_{what}: {{ location: {location}{format} }}   # {why}: compared where no skinning function is named"
            ));
            if !unit(location) {
                let name = outputs
                    .iter()
                    .find(|o| o.0 == location)
                    .map(|o| (o.1.clone(), what == "tangent"));
                unnormalised.extend(name);
            }
        }
    }
    (unnormalised, drafted)
}

/// The vertex stage's section: the fragment stage, attributes guessed by type and name, skinned
/// normal and tangent outputs, the camera among the uniforms with a matrix, and a skinning
/// function by its signature; the influence sets the attributes hold.
pub(super) fn vertex_section(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[Global],
    stage: Stage,
    (palette, switches): (Option<&Global>, &[super::gates::Switch]),
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> VertexDraft {
    let ep = &module.entry_points[stage.index];
    w.line("vertex:");
    w.line(format!("  entry: {}", ep.name));
    fragment_lines(stage.fragment, w);
    let (inputs, pulls) = vertex_inputs(module, ep);
    let mut sets = None;
    let mut pulled = PulledFrames::default();
    if pulls && inputs.is_empty() {
        let target = palette.and_then(|p| super::palette_target(module, p));
        let found = pulled_lines(module, info, globals, (stage.index, target), w, taken)
            .or_else(|| stream_lines(module, info, globals, (stage.index, target), w, taken));
        if let Some((s, frames)) = found {
            (sets, pulled) = (Some(s), frames);
        } else {
            w.todo("the stage takes no attributes and reads @builtin(vertex_index): it pulls its vertices; give `vertex.vertices` (byte-addressed offsets, see shaders/README.md)");
        }
    }
    let columns = matrix_columns(module, ep, &inputs);
    // A stage that reads by vertex index may read its joints and weights from storage: its vec2
    // inputs are then no pairs.
    let picks = Picks::of(&inputs, &columns.concat(), !pulls);
    // A stage with attributes that reads its joints and weights by vertex index beside them.
    let mut held = Writer {
        out: String::new(),
        todos: 0,
    };
    let paired = !picks.pairs.is_empty();
    if pulls && !inputs.is_empty() && picks.joints.is_none() && picks.weights.is_none() && !paired {
        let target = palette.and_then(|p| super::palette_target(module, p));
        sets = influence_lines(
            module,
            info,
            globals,
            (stage.index, target),
            &mut held,
            taken,
        );
    }
    // A stage that pulls every field has no attributes to name; one with some names the rest.
    let stored = Stored {
        vertices: pulls && inputs.is_empty(),
        influences: sets.is_some() && !inputs.is_empty(),
    };
    attribute_lines(&inputs, &picks, stored, w);
    w.out.push_str(&held.out);
    matrix_column_lines(&inputs, &columns, w);
    let (unnormalised, frames) =
        frame_output_lines(module, ep, (&inputs, &picks, &pulled), palette, w);
    let lanes = (picks.lanes, picks.lanes - u8::from(picks.implied));
    let mut function = skin_function(module, lanes);
    let clip = super::flow::clip_writes(module, ep);
    // Only a vertex-only profile's entry point is copied, where a clip z of its own matters.
    let compute = (module.entry_points.iter()).any(|e| e.stage == naga::ShaderStage::Compute);
    // A skinning function compares positions alone (and normals beside a normal function): where
    // the stage returns a skinned normal or tangent and no function has a normal function's
    // signature, the entry point's copy compares them too.
    let normal_fn =
        (function.as_deref()).and_then(|skin| super::read::normal_function(module, lanes, skin));
    let mut passed_over = None;
    if frames.contains(&true) && !compute && normal_fn.is_none() {
        passed_over = function.take();
    }
    let copied = function.is_none() && !compute;
    let extras = |g: &Global| {
        let transposed = g.variable(module).is_some_and(|v| {
            super::orient::transposed(module, info, stage.index, (v, None)) == Some(true)
        });
        camera_extras(
            transposed,
            (clip.y_negated, clip.y_negated_before),
            clip.z && copied,
        )
    };
    let at = (globals, stage.index);
    camera(module, at, (palette, switches), &extras, w, taken);
    if let Some(name) = &function {
        w.line(format!(
            "  skin_function: {name}   # its signature is a skinning function's: compared number by number through it"
        ));
        match normal_fn.filter(|_| frames[0]) {
            Some(super::read::NormalFunction::Influences(n)) => w.line(format!(
                "  normal_function: {n}   # its signature is a normal function's, (normal, joints, weights) -> normal: the skinned normals compared through it"
            )),
            Some(super::read::NormalFunction::Other(n)) => w.line(format!(
                "  # `{n}` may skin the normal (a matrix and a normal, or the joints and weights to a 3x3): name it `normal_function` if it does, or the normals are not compared"
            )),
            None => {}
        }
    } else if let Some(name) = passed_over {
        w.line(format!(
            "  # `{name}` has a skinning function's signature, but no function skins a normal: the harness compares the entry point through a copy of it, its skinned normal and tangent too (through `{name}` they would be left out)"
        ));
    } else {
        w.line("  # no function with a skinning signature: the harness compares the entry point through a copy of it");
    }
    // Pairs say how many influences themselves: no `influence_sets` or `max_influences` beside.
    VertexDraft {
        sets: if paired {
            1
        } else {
            sets.unwrap_or_else(|| picks.sets())
        },
        lanes: if paired { 4 } else { picks.lanes },
        implied: picks.implied,
        // The outputs' lengths matter only where the outputs are what is compared.
        unnormalised: if function.is_none() {
            unnormalised
        } else {
            Vec::new()
        },
    }
}

/// A stage that pulls its vertices from a read-only buffer of bare words: `vertex.vertices`, laid
/// out by what the stage does with the words it loads ([`super::words`]); the influence sets, or
/// None where no such buffer shows its fields.
fn pulled_lines(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[Global],
    traced: (usize, super::Target),
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<(usize, PulledFrames)> {
    let all = |_: &Global, l: &super::words::Layout| {
        l.position.is_some() && l.joints.is_some() && l.weights.is_some()
    };
    let globals: Vec<&Global> = globals.iter().collect();
    words_lines(module, info, &globals, traced, ("vertices", all), w, taken)
}

/// A stage that pulls each field from a buffer of its own (pygfx's positions, normals, skin
/// indices and weights): `vertex.streams`, each laid out by what the stage does with the words
/// it loads; the influence sets, or None where the position, the joints and the weights are not
/// each found in exactly one buffer.
fn stream_lines(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[Global],
    (index, palette): (usize, super::Target),
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<(usize, PulledFrames)> {
    let globals: Vec<&Global> = globals.iter().collect();
    let streams: Vec<(&Global, super::words::Layout)> =
        super::words::each_traced(module, info, &globals, (index, palette, None), taken)
            .filter(|(_, l, _)| l.holds_field() && l.fits())
            .map(|(g, l, _)| (g, l))
            .collect();
    let once =
        |has: fn(&super::words::Layout) -> bool| streams.iter().filter(|s| has(&s.1)).count() == 1;
    if !(once(|l| l.position.is_some())
        && once(|l| l.joints.is_some())
        && once(|l| l.weights.is_some()))
    {
        return None;
    }
    w.line("  # no one buffer holds every field: each of these read-only buffers holds some, laid out by what the stage does with the words it loads at the vertex index (a palette index, a weight, a vector the joints' matrices move: named by its lets, a point's w 1 the position); check each against the shader");
    w.line("  streams:");
    let mut sets = 1;
    let mut frames = PulledFrames::default();
    for (g, layout) in &streams {
        taken.push((g.group, g.binding));
        frames.add(module, g, layout);
        if layout.joints.is_some() {
            sets = layout.sets();
        }
        w.line(format!(
            "    - {{ group: {}, binding: {}, {} }}   # `{}`",
            g.group,
            g.binding,
            layout.stream_fields(),
            g.name
        ));
    }
    Some((sets, frames))
}

/// The first of `globals` in bare words whose layout `keep` takes, as the stage's `role`
/// (`vertices` or `influences`) with its fields; the influence sets.
fn words_lines(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[&Global],
    (index, palette): (usize, super::Target),
    (role, keep): (&str, impl Fn(&Global, &super::words::Layout) -> bool),
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<(usize, PulledFrames)> {
    let traced = (index, palette, None);
    let (g, layout) = super::words::first_traced(module, info, globals, traced, taken, keep)?;
    taken.push((g.group, g.binding));
    (super::words::lines(g, &layout, role).into_iter()).for_each(|l| w.line(l));
    let mut frames = PulledFrames::default();
    frames.add(module, g, &layout);
    Some((layout.sets(), frames))
}

/// A stage with attributes that reads its joints and weights by vertex index from a read-only
/// buffer: `vertex.influences`, from an array of structs whose members are named as joints and
/// weights, or from bare words by what the stage does with them ([`super::words`]); the
/// influence sets, or None where no buffer shows them.
fn influence_lines(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[Global],
    traced: (usize, super::Target),
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<usize> {
    let free: Vec<&Global> = (globals.iter())
        .filter(|g| matches!(g.space, AddressSpace::Storage { .. }) && !g.writable())
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    for g in &free {
        let Some((ms, name)) = super::compute::element_struct(module, g) else {
            continue;
        };
        let (Some((j, jf)), Some((k, kf))) = super::compute::influence_members(module, ms) else {
            continue;
        };
        taken.push((g.group, g.binding));
        w.line(format!(
            "  # `{}` is an array of `{name}` structs read by vertex index whose members are named as joints and weights: byte-addressed by member, the stride the array's (check the formats: the words a member holds tell them)",
            g.name
        ));
        w.line(format!(
            "  influences: {{ group: {}, binding: {}, joints: {{ offset: {j}, format: {jf} }}, weights: {{ offset: {k}, format: {kf} }} }}",
            g.group, g.binding
        ));
        return Some(1);
    }
    let only = |_: &Global, l: &super::words::Layout| {
        l.position.is_none() && l.joints.is_some() && l.weights.is_some() && l.fits()
    };
    words_lines(module, info, &free, traced, ("influences", only), w, taken).map(|f| f.0)
}

/// A normal or a tangent a stage pulls: its buffer, its width (a tangent's 3 or 4), and whether
/// the buffer holds no other vector.
#[derive(Clone, Copy)]
struct PulledFrame {
    buffer: naga::Handle<naga::GlobalVariable>,
    width: u8,
    alone: bool,
}

/// The normal and the tangent a stage pulls, where it does.
#[derive(Default)]
struct PulledFrames {
    normal: Option<PulledFrame>,
    tangent: Option<PulledFrame>,
}

impl PulledFrames {
    /// What `layout` of buffer `g` adds.
    fn add(&mut self, module: &Module, g: &Global, layout: &super::words::Layout) {
        let Some(buffer) = g.variable(module) else {
            return;
        };
        let vectors = [layout.position, layout.normal, layout.tangent];
        let alone = vectors.iter().flatten().count() == 1;
        if layout.normal.is_some() {
            self.normal = Some(PulledFrame {
                buffer,
                width: 3,
                alone,
            });
        }
        if layout.tangent.is_some() {
            let width = if layout.tangent_vec3() { 3 } else { 4 };
            self.tangent = Some(PulledFrame {
                buffer,
                width,
                alone,
            });
        }
    }
}

/// What the stage does with its camera matrix, for the drafted camera line: each field with
/// the comment that says why. It applies the matrix transposed (`p * view_projection`), negates
/// y after the camera or before it, writes its clip z after it.
fn camera_extras(
    transposed: bool,
    (y_negated, y_negated_before): (bool, bool),
    z: bool,
) -> Vec<(&'static str, &'static str)> {
    [
        (transposed, "the stage applies its camera transposed (`p * view_projection`, row vectors): stored by rows (`matrix: rows`)", "matrix: rows"),
        (y_negated, "the stage negates its clip y after the camera (as naga writes a stage read from SPIR-V made for Vulkan): the harness writes its camera with y negated (`clip_y: flipped`)", "clip_y: flipped"),
        // Both ways cancel no camera the harness could write: the flip after it is drafted.
        (y_negated_before && !y_negated, "the stage negates a position's y before the camera (`p.y = -p.y`, a world position's): the harness writes its camera with its y column negated (`clip_y: flipped_before`)", "clip_y: flipped_before"),
        (z, "the stage writes its clip position's z itself after the camera (a clamp to the near plane, a depth of its own): the capture reads the skinned z from clip w (`clip_z: stage`)", "clip_z: stage"),
    ]
    .into_iter()
    .filter(|e| e.0)
    .map(|(_, why, field)| (why, field))
    .collect()
}

/// What the vertex section tells the rest of the draft: the influence sets the attributes hold,
/// and the skinned outputs the entry point does not renormalise (left to a later stage).
pub(super) struct VertexDraft {
    pub(super) sets: usize,
    /// How many influences a vertex its joints and weights attributes hold, where fewer than 4.
    pub(super) lanes: u8,
    /// Whether its weights are one fewer than its joints, the last implied.
    pub(super) implied: bool,
    /// The skinned outputs the stage returns without renormalising, each with whether it is the
    /// tangent.
    pub(super) unnormalised: Vec<(String, bool)>,
}

/// The camera's field in the draft, `fields` after its group and binding, with why; then the
/// `extras` a camera matrix takes ([`camera_extras`]), each with its comment.
fn camera_lines(w: &mut Writer, why: &str, fields: &str, extras: &[(&str, &str)]) {
    w.line(format!("  # {why}"));
    camera_line(w, fields, extras);
}

/// The camera's line, its `extras` after `fields` and their comments before it.
fn camera_line(w: &mut Writer, fields: &str, extras: &[(&str, &str)]) {
    let mut fields = fields.to_string();
    for (why, field) in extras {
        w.line(format!("  # {why}"));
        fields.push_str(", ");
        fields.push_str(field);
    }
    w.line(format!("  camera: {{ {fields} }}"));
}

/// The camera: a uniform holding a mat4x4 (named as a view or projection first), or a read-only
/// storage struct holding one the clip position reads, a read-only storage array of matrices
/// named as a camera's, a matrix member of the palette's struct, or the contract's 2D view.
fn camera(
    module: &Module,
    (globals, stage): (&[Global], usize),
    (palette, switches): (Option<&Global>, &[super::gates::Switch]),
    extras: &dyn Fn(&Global) -> Vec<(&'static str, &'static str)>,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) {
    // Uniforms; and a read-only storage struct (Piccolo's per-frame buffer), where the clip
    // position reads its matrix.
    let uniforms: Vec<&Global> = (globals.iter())
        .filter(|g| {
            g.space == AddressSpace::Uniform
                || (matches!(g.space, AddressSpace::Storage { .. })
                    && !g.writable()
                    && matches!(g.ty, TypeInner::Struct { .. }))
        })
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let with_matrix: Vec<_> = (uniforms.iter())
        .filter_map(|g| {
            let clip = g.variable(module).map_or_else(Vec::new, |v| {
                (module.entry_points.get(stage))
                    .map_or_else(Vec::new, |ep| super::flow::clip_members(module, ep, v))
            });
            camera_matrix(module, g, &clip)
                .filter(|m| g.space == AddressSpace::Uniform || m.clipped)
                .map(|m| (*g, m))
        })
        .collect();
    // One the clip position reads first, then a uniform before storage (an object's model
    // matrices kept in storage), then named as a camera (the global, or its best-named matrix,
    // wherever it lies: a projection at byte 0 is no member the profile names, yet says camera);
    // ties go to the first binding.
    let chosen = (with_matrix.iter()).max_by_key(|(g, m)| {
        let members = struct_of(module, g).map_or(0, |ms| {
            (ms.iter())
                .filter(|m| is_mat4(&module.types[m.ty].inner))
                .map(|m| camera_score(m.name.as_deref().unwrap_or("")))
                .max()
                .unwrap_or(0)
        });
        let camera = named(&g.name, CAMERA_WORDS) || members > 0;
        (
            m.clipped,
            g.space == AddressSpace::Uniform,
            camera,
            members,
            std::cmp::Reverse((g.group, g.binding)),
        )
    });
    if let Some((g, super::read::CameraMatrix { member, count, .. })) = chosen {
        taken.push((g.group, g.binding));
        let mut fields = format!("group: {}, binding: {}, form: matrix", g.group, g.binding);
        if let Some(m) = member {
            let _ = write!(fields, ", member: {m}");
        }
        if *count > 1 {
            fields.push_str(", fill: identity");
        }
        w.line(format!(
            "  # `{}` holds a mat4x4<f32>: the camera's view-projection{}",
            g.name,
            if *count > 1 {
                "; its other matrices (a view, a model matrix) become identities"
            } else {
                ""
            }
        ));
        // A skinning switch beside the camera's matrices (cx20's `flags.x`).
        let var = g.variable(module);
        let gated: Vec<&super::gates::Switch> = (switches.iter())
            .filter(|s| Some(s.global) == var)
            .collect();
        if !gated.is_empty() {
            w.line(format!(
                "  # `{}`: {}",
                g.name,
                super::switch_comment(&gated)
            ));
            let values: Vec<String> = (gated.iter())
                .map(|s| format!("{}: {}", s.path, s.yaml_value()))
                .collect();
            let _ = write!(fields, ", members: {{ {} }}", values.join(", "));
        }
        camera_line(w, &fields, &extras(g));
        return;
    }
    // A read-only storage array of matrices named as a camera's (a view-projection per
    // instance, Ignis's `shadowMvps`): element 0, the drawn instance's.
    let per_instance = (globals.iter()).find(|g| {
        matches!(g.space, AddressSpace::Storage { .. })
            && !g.writable()
            && !taken.contains(&(g.group, g.binding))
            && named(&g.name, CAMERA_WORDS)
            && matches!(g.ty, TypeInner::Array { base, .. } if is_mat4(&module.types[*base].inner))
    });
    if let Some(g) = per_instance {
        taken.push((g.group, g.binding));
        let why = format!("`{}` is a storage array of matrices named as a camera's: element 0, the drawn instance's, the camera's view-projection", g.name);
        camera_lines(
            w,
            &why,
            &format!("group: {}, binding: {}, form: matrix", g.group, g.binding),
            &extras(g),
        );
        return;
    }
    // The palette's own struct may hold the camera (one uniform per draw).
    if let Some(p) = palette.filter(|p| matches!(p.ty, TypeInner::Struct { .. })) {
        // Named even at byte 0: the palette's struct holds it beside the joints.
        let best = struct_of(module, p).and_then(|ms| {
            (ms.iter().rev())
                .filter(|m| is_mat4(&module.types[m.ty].inner))
                .max_by_key(|m| camera_score(m.name.as_deref().unwrap_or("")))
                .and_then(|m| m.name.clone())
        });
        if let Some(member) = best {
            let why = format!(
                "the palette's struct `{}` holds a mat4x4<f32> member `{member}`: the camera",
                p.name
            );
            let fields = format!(
                "group: {}, binding: {}, form: matrix, member: {member}",
                p.group, p.binding
            );
            camera_lines(w, &why, &fields, &extras(p));
            return;
        }
    }
    // A struct of four floats: the contract's 2D view (scale, offset_y, half_width, pad).
    let view = uniforms.iter().find(|g| match g.ty {
        TypeInner::Struct { members, .. } => {
            members.len() == 4
                && members.iter().all(|m| {
                    matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if s.kind == ScalarKind::Float)
                })
        }
        _ => false,
    });
    if let Some(g) = view {
        taken.push((g.group, g.binding));
        let why = format!("`{}` is a struct of four floats: the contract's 2D view (scale, offset_y, half_width, pad)", g.name);
        camera_lines(
            w,
            &why,
            &format!("group: {}, binding: {}, form: view", g.group, g.binding),
            &[],
        );
        return;
    }
    w.todo("no uniform holding a mat4x4<f32> camera: give `vertex.camera` (`form: matrix`, or `view` for the contract's 2D view); the binding below is a free one, a placeholder");
    let used: Vec<(u32, u32)> = globals.iter().map(|g| (g.group, g.binding)).collect();
    let free = (0..).find(|b| !used.contains(&(3, *b))).unwrap_or(0);
    w.line(format!(
        "  camera: {{ group: 3, binding: {free}, form: matrix }}"
    ));
}
