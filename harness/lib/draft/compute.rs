//! The compute stage's part of a draft: typed buffers by element type, access and name, or a
//! vertex pool by its start members' names.

use std::fmt::Write as _;

use naga::{AddressSpace, Module, ScalarKind, TypeInner};

use super::read::{array_element, named, vector, Global, JOINT_WORDS, OFFSET_WORDS, WEIGHT_WORDS};
use super::Writer;

/// The compute stage's section: typed buffers guessed by element type, access and name.
pub(super) fn compute_section(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    globals: &[Global],
    (index, palette): (usize, super::Target),
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> (Vec<Extra>, usize) {
    let ep = &module.entry_points[index];
    w.line("compute:");
    w.line(format!("  entry: {}", ep.name));
    if let Some(extras) = pool_section(module, globals, w, taken) {
        return (extras, 1);
    }
    let storage: Vec<&Global> = (globals.iter())
        .filter(|g| matches!(g.space, AddressSpace::Storage { .. }))
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let writable = |g: &Global| g.writable();
    let element = |g: &Global| array_element(module, g.handle).map(|e| &module.types[e].inner);
    let found = |role: &str, g: &Global, format: &str, why: String, w: &mut Writer| {
        w.line(format!("  # {why}"));
        w.line(format!(
            "  {role}: {{ group: {}, binding: {}, format: {format} }}",
            g.group, g.binding
        ));
    };
    let mut covered = struct_streams(module, &storage, w, taken);
    let mut sets = 1;
    if !covered.contains(&"positions") {
        let traced = (index, palette);
        let pulled;
        let influenced = covered.contains(&"joints");
        (pulled, sets) = pulled_streams(module, info, &storage, traced, influenced, w, taken);
        covered.extend(pulled);
    }
    let mut missing = Vec::new();
    for (role, want) in [
        ("positions", &["pos"][..]),
        ("joints", JOINT_WORDS),
        ("weights", WEIGHT_WORDS),
        ("skinned", &["skinned", "out", "result", "dst", "pos"][..]),
    ] {
        if covered.contains(&role) {
            continue;
        }
        // A source may be declared read-write (engines that skin in place declare every buffer
        // so); a read-only one named alike goes first.
        let fits = |g: &&&Global| {
            !taken.contains(&(g.group, g.binding))
                && (role != "skinned" || writable(g))
                && named(&g.name, want)
        };
        let pick = (storage.iter().filter(|g| role == "skinned" || !writable(g)))
            .find(fits)
            .or_else(|| storage.iter().find(fits));
        let Some(g) = pick else {
            missing.push(role);
            continue;
        };
        let (format, why) = match (role, element(g).and_then(vector)) {
            ("joints", Some((4, ScalarKind::Uint))) => ("u32x4", "array<vec4<u32>>".to_string()),
            ("joints", Some((2, ScalarKind::Uint))) => {
                ("u16x4", "array<vec2<u32>>: u16 pairs".to_string())
            }
            ("joints", Some((4, ScalarKind::Float))) => {
                ("f32x4", "array<vec4<f32>>: float indices".to_string())
            }
            ("joints", Some((4, ScalarKind::Sint))) => {
                ("i32x4", "array<vec4<i32>>: signed indices".to_string())
            }
            ("joints", _) => ("u16x4", "words: u16 pairs, low half first".to_string()),
            ("weights", _) => ("f32x4", "array<vec4<f32>>".to_string()),
            (_, Some((3, _))) => ("vec3", "array<vec3<f32>>".to_string()),
            _ => ("vec4", "array<vec4<f32>>".to_string()),
        };
        let why = format!("`{}` is named as {role}, {why}", g.name);
        taken.push((g.group, g.binding));
        if role == "positions" {
            // Read and written with no other output named so: skinned in place.
            let other_output = (storage.iter()).any(|o| {
                (o.group, o.binding) != (g.group, g.binding)
                    && writable(o)
                    && named(&o.name, &["skinned", "out", "result", "dst"])
            });
            let in_place = writable(g) && super::strides::reads(module, g) && !other_output;
            if packed_positions(module, g, in_place, w) {
                covered.push("positions");
                if in_place {
                    covered.push("skinned");
                }
                continue;
            }
        }
        if role == "skinned" && format == "vec4" && interleaved(module, &storage, g, w) {
            continue;
        }
        // A point's w after each skinned position (`vec4(p, 1.0)`), where every store says so.
        let point = role == "skinned"
            && format == "vec4"
            && g.variable(module)
                .is_some_and(|v| super::flow::stores_point_w(module, v));
        if point {
            w.line(format!(
                "  # `{}` is stored as a point, w 1 (`vec4(skinned, 1.0)`, or a matrix times a stored point of w 1)",
                g.name
            ));
            found(role, g, "vec4, w: 1", why, w);
            continue;
        }
        found(role, g, format, why, w);
    }
    frame_streams(module, &storage, &covered, w, taken);
    // Storage buffers of bare words or floats: byte-addressed, laid out by offsets no name gives.
    let left: Vec<&&Global> = (storage.iter())
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .collect();
    let output = !covered.is_empty() || !missing.contains(&"skinned");
    for g in left {
        let words = element(g).is_some_and(|e| matches!(e, TypeInner::Scalar(_)));
        if output && writable(g) && !words {
            // Beside the skinned output, another the shader writes (an engine's side output):
            // filled as a binding, what it holds never compared.
            w.line(format!(
                "  # `{}` is written too, beside the skinned output, and holds no role the names tell: filled (`bindings`), its contents never compared; give it as `compute.output` if it holds the skinned vertices",
                g.name
            ));
            continue;
        }
        if words || writable(g) {
            taken.push((g.group, g.binding));
            w.todo(format!(
                "`{}` (@group({}) @binding({})) is a buffer of no role the names tell (an array of 32-bit words is byte-addressed): give it as `compute.vertices`, `compute.influences`, `compute.output` or `compute.regions` with its offsets and stride, or as the role it holds (shaders/README.md)",
                g.name, g.group, g.binding
            ));
        }
    }
    for role in missing {
        w.todo(format!(
            "no storage buffer named as {role}: give `compute.{role}`, or for one byte-addressed buffer `compute.vertices` / `compute.output` (or a vertex pool, `compute.regions`)"
        ));
    }
    if let Some(extras) = bound_count(module, globals, ep, w, taken) {
        return (extras, sets);
    }
    let count = (globals.iter())
        .filter(|g| g.space == AddressSpace::Uniform && !taken.contains(&(g.group, g.binding)))
        .find(|g| match g.ty {
            TypeInner::Struct { members, .. } => members.first().is_some_and(|m| {
                matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint))
            }),
            TypeInner::Scalar(s) => matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint),
            // A vector of parameters whose x is the count (engine-kernel's `params.x`).
            TypeInner::Vector { size, scalar } => {
                *size == naga::VectorSize::Quad && scalar.kind == ScalarKind::Uint
            }
            _ => false,
        });
    // A larger struct (a count beside other parameters) is a filled binding whose first member
    // the harness writes: `compute.count` binds exactly 16 bytes.
    let size = |g: &Global| module.types[g.handle].inner.size(module.to_ctx());
    if let Some(g) = count.filter(|g| size(g) > 16) {
        let first = match g.ty {
            TypeInner::Struct { members, .. } => members[0].name.clone().unwrap_or_default(),
            _ => String::new(),
        };
        w.line(format!(
            "  # `{}` is a uniform whose first member, `{first}`, is a 32-bit integer: the vertex count, beside other parameters: the harness writes it per case (`bindings`)",
            g.name
        ));
        return (
            vec![((g.group, g.binding), format!(", count: {first}"))],
            sets,
        );
    }
    if let Some(g) = count {
        taken.push((g.group, g.binding));
        let first = match g.ty {
            TypeInner::Vector { .. } => "x lane",
            _ => "first member",
        };
        w.line(format!(
            "  # `{}` is a uniform whose {first} is a 32-bit integer: the vertex count",
            g.name
        ));
        w.line(format!(
            "  count: {{ group: {}, binding: {} }}",
            g.group, g.binding
        ));
        return (Vec::new(), sets);
    }
    // A count among a parameters struct's other members: that binding's `count`, written per case.
    let member = (globals.iter())
        .filter(|g| !taken.contains(&(g.group, g.binding)))
        .filter(|g| g.space != AddressSpace::Handle && !writable(g))
        .find_map(|g| Some((g, count_member(module, g.ty)?)));
    let extras = match member {
        Some((g, path)) => {
            w.line(format!(
                "  # `{}`'s `{path}` is named as the vertex count{}: the harness writes it per case (`bindings`)",
                g.name,
                if path.ends_with(".end") { " (the end of a range from 0)" } else { "" }
            ));
            vec![((g.group, g.binding), format!(", count: {path}"))]
        }
        None => Vec::new(),
    };
    (extras, sets)
}

/// The vertex count where the stage's guard shows it (`if (i >= sp.p.y) { return; }`,
/// [`super::gates::count_bound`]): `count` where it is the first u32 of a uniform of at most 16
/// bytes, else the filled binding's `count` member (a dotted path, a lane last), or the immediate
/// data's (drafted by [`immediate_count`]); none where the guard reads an input's `arrayLength`;
/// None where no guard bounds the invocations.
fn bound_count(
    module: &Module,
    globals: &[Global],
    ep: &naga::EntryPoint,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<Vec<Extra>> {
    let (var, path, lane) = match super::gates::count_bound(module, ep)? {
        super::gates::Bound::Member(m) => m,
        super::gates::Bound::ArrayLength => {
            w.line("  # the stage bounds its invocations by an input's `arrayLength`: no count");
            return Some(Vec::new());
        }
        super::gates::Bound::Whole(var) => {
            let g = (globals.iter()).find(|g| {
                g.variable(module) == Some(var) && !taken.contains(&(g.group, g.binding))
            })?;
            taken.push((g.group, g.binding));
            w.line(format!(
                "  # `{}` bounds the invocations (the stage's guard compares `i` with it): the vertex count, written per case",
                g.name
            ));
            w.line(format!(
                "  count: {{ group: {}, binding: {} }}",
                g.group, g.binding
            ));
            return Some(Vec::new());
        }
    };
    let path = super::gates::lane_path(&path, lane);
    // Push constants: `immediates.count`, which the immediates' section writes.
    if module.global_variables[var].space == AddressSpace::Immediate {
        w.line(format!(
            "  # the immediate data's `{path}` bounds the invocations (the stage's guard compares `i` with it): the vertex count, written per case (`immediates.count`)"
        ));
        return Some(Vec::new());
    }
    let g = (globals.iter())
        .find(|g| g.variable(module) == Some(var) && !taken.contains(&(g.group, g.binding)))?;
    let why = format!(
        "  # `{}`'s `{path}` bounds the invocations (the stage's guard compares `i` with `{}.{path}`): the vertex count, written per case",
        g.name, g.name
    );
    let size = module.types[g.handle].inner.size(module.to_ctx());
    let first = match g.ty {
        TypeInner::Struct { members, .. } => members.first().and_then(|m| m.name.clone()),
        _ => None,
    };
    if size <= 16 && lane.is_none() && first.as_deref() == Some(path.as_str()) {
        taken.push((g.group, g.binding));
        w.line(why);
        w.line(format!(
            "  count: {{ group: {}, binding: {} }}",
            g.group, g.binding
        ));
        return Some(Vec::new());
    }
    w.line(format!("{why} (`bindings`)"));
    Some(vec![((g.group, g.binding), format!(", count: {path}"))])
}

/// The member of a parameters struct that holds the vertex count: a 32-bit integer named as a
/// count of vertices (`vertex_count`, `num_verts`), or the `end` of a struct of `start` and `end`
/// named as the vertices' range (`vertices: Range`), as a dotted path.
fn count_member(module: &Module, ty: &TypeInner) -> Option<String> {
    let TypeInner::Struct { members, .. } = ty else {
        return None;
    };
    let integer = |t: naga::Handle<naga::Type>| {
        matches!(module.types[t].inner, TypeInner::Scalar(s)
            if s.width == 4 && matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint))
    };
    let name = |m: &naga::StructMember| m.name.clone().unwrap_or_default();
    let counts = ["vertexcount", "numvert", "vertcount", "nvert", "countvert"];
    if let Some(m) = (members.iter()).find(|m| integer(m.ty) && named(&name(m), &counts)) {
        return Some(name(m));
    }
    members.iter().find_map(|m| {
        let TypeInner::Struct { members: range, .. } = &module.types[m.ty].inner else {
            return None;
        };
        let has = |n: &str| (range.iter()).any(|r| r.name.as_deref() == Some(n) && integer(r.ty));
        (named(&name(m), &["vert", "range"]) && has("start") && has("end"))
            .then(|| format!("{}.end", name(m)))
    })
}

/// A skinned output of vec4 slots, several a vertex (`out[i * 2u]`, `out[i * 2u + 1u]`), written
/// as a byte-addressed output: the position in the first slot stored, then the normal and the
/// tangent in the next where the shader reads their sources (a read-only buffer named so), as
/// engines interleave them. False, writing nothing, where the stores take one slot a vertex.
fn interleaved(module: &Module, storage: &[&Global], g: &Global, w: &mut Writer) -> bool {
    let Some((k, slots)) = g
        .variable(module)
        .and_then(|h| super::strides::slots(module, h))
    else {
        return false;
    };
    let read = |words: &[&str]| {
        (storage.iter())
            .any(|s| named(&s.name, words) && !named(&s.name, &["skinned", "out"]) && !s.writable())
    };
    // An element's bytes: a vec4 slot holds a field, a word one of a field's floats.
    let words = array_element(module, g.handle)
        .is_some_and(|e| matches!(module.types[e].inner, TypeInner::Scalar(_)));
    let size = if words { 4 } else { 16 };
    // The fields in the order of their slots: each a slot, or, in words, a run of consecutive
    // slots as long as the field (3 floats a position or normal, 4 a tangent).
    let mut at = 0;
    let mut take = |n: usize| -> Option<(i64, usize)> {
        let first = *slots.get(at)?;
        let span = if words { n } else { 1 };
        let run = (0..span)
            .take_while(|&d| slots.get(at + d) == Some(&(first + d as i64)))
            .count();
        at += run.max(1);
        Some((first, run))
    };
    let mut line = format!(
        "  output: {{ group: {}, binding: {}, stride: {}, position: {}",
        g.group,
        g.binding,
        size * k,
        take(3).map_or(0, |r| size * r.0)
    );
    let mut held = vec!["the position"];
    for (name, want) in [("normal", 3), ("tangent", 4)] {
        if read(&[name]) {
            let Some((c, n)) = take(want) else {
                continue;
            };
            if words && n != want {
                w.line(format!(
                    "  # the {n} words from slot {c} are not drafted as the {name}: a byte-addressed {name} is {want} floats"
                ));
                continue;
            }
            let _ = write!(line, ", {name}: {}", size * c);
            held.push(if name == "normal" {
                "the normal"
            } else {
                "the tangent"
            });
        }
    }
    let unit = if words { "words" } else { "vec4 slots" };
    w.line(format!(
        "  # `{}` is stored at `i * {k} + c` for c in {slots:?}: {k} {unit} a vertex, byte-addressed; {} in the slots stored, in order (check the order against the stores)",
        g.name,
        held.join(", ")
    ));
    w.line(format!("{line} }}"));
    true
}

/// Positions as an array of a struct of three floats (rend3's tightly packed `Vec3`, 12 bytes a
/// vertex), which no typed `vec3` array (16 bytes) reads: byte-addressed `compute.vertices`, and
/// `in_place`, the output over it. Whether it wrote them.
fn packed_positions(module: &Module, g: &Global, in_place: bool, w: &mut Writer) -> bool {
    let Some(Layout {
        format: Some("vec3"),
        stride: Some(stride),
        why,
        encoding: None,
    }) = frame_layout(module, g, 3)
    else {
        return false;
    };
    let fields = format!(
        "group: {}, binding: {}, stride: {stride}, position: 0",
        g.group, g.binding
    );
    w.line(format!(
        "  # `{}` is named as positions, {why}: byte-addressed",
        g.name
    ));
    w.line(format!("  vertices: {{ {fields} }}"));
    if in_place {
        w.line(format!(
            "  # `{}` is read and written: skinned in place",
            g.name
        ));
        w.line(format!("  output: {{ {fields} }}"));
    }
    true
}

/// How a buffer of one normal or tangent a vertex lays them out: its format where it says one,
/// its stride where byte-addressed (a guess for bare words), and why, in words.
struct Layout {
    format: Option<&'static str>,
    stride: Option<u32>,
    why: String,
    /// A packed direction's encoding (`snorm8`), where the shader unpacks its words.
    encoding: Option<crate::format::Encoding>,
}

impl Layout {
    /// The profile's fields after the group and binding.
    fn fields(&self) -> String {
        let mut out = String::new();
        if let Some(f) = self.format {
            let _ = write!(out, ", format: {f}");
        }
        if let Some(s) = self.stride {
            let _ = write!(out, ", stride: {s}");
        }
        if let Some(e) = self.encoding {
            let _ = write!(out, ", encoding: {}", e.name());
        }
        out
    }
}

/// The layout of `g`'s elements as directions: a typed vec3 or vec4 array; a struct of 3 or 4
/// floats (byte-addressed, its span the stride); or bare 32-bit words, whose stride `words`
/// floats a vertex is a guess (None for any other element).
fn frame_layout(module: &Module, g: &Global, words: u32) -> Option<Layout> {
    let e = array_element(module, g.handle)?;
    match &module.types[e].inner {
        t if vector(t) == Some((3, ScalarKind::Float)) => Some(Layout {
            format: Some("vec3"),
            stride: None,
            why: "array<vec3<f32>>".into(),
            encoding: None,
        }),
        t if vector(t) == Some((4, ScalarKind::Float)) => Some(Layout {
            format: Some("vec4"),
            stride: None,
            why: "array<vec4<f32>>".into(),
            encoding: None,
        }),
        // Integer words the shader unpacks: one packed direction an element.
        t if words_encoding(module, t).is_some() => {
            let (encoding, bytes) = words_encoding(module, t)?;
            let vec3 = words == 4 && unhanded(module, encoding);
            Some(Layout {
                format: vec3.then_some("vec3"),
                stride: Some(bytes),
                why: format!(
                    "integer words the shader unpacks as {}: one packed direction in each {bytes}-byte element",
                    encoding.name()
                ),
                encoding: Some(encoding),
            })
        }
        TypeInner::Struct { members, span } => {
            let floats: Option<u32> = (members.iter())
                .map(|m| match member_words(module, m.ty)? {
                    (n, true) => Some(n),
                    _ => None,
                })
                .sum();
            let format = match floats? {
                3 => "vec3",
                4 => "vec4",
                _ => return None,
            };
            let name = module.types[e].name.clone().unwrap_or_default();
            Some(Layout {
                format: Some(format),
                stride: Some(*span),
                why: format!("an array of `{name}`, {format} in {span} bytes a vertex"),
                encoding: None,
            })
        }
        TypeInner::Scalar(s) if s.width == 4 => Some(Layout {
            format: None,
            stride: Some(4 * words),
            why: format!(
                "32-bit words, byte-addressed: {} bytes ({words} floats) a vertex guessed, check the stride",
                4 * words
            ),
            encoding: None,
        }),
        _ => None,
    }
}

/// Normals and tangents in buffers of their own: sources read-only, skinned ones written (a
/// written one with no source beside it skinned in place, both roles at its binding), each a
/// typed array, an array of a struct of floats or bare words. Bare-word skinned streams take
/// their source's stride.
fn frame_streams(
    module: &Module,
    storage: &[&Global],
    covered: &[&str],
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) {
    let writable = |g: &Global| g.writable();
    for (what, source_role, words) in [("normal", "normals", 3), ("tangent", "tangents", 4)] {
        let free = |g: &&&Global| {
            !taken.contains(&(g.group, g.binding))
                && (named(&g.name, &[what]) || short_frame_name(&g.name, what))
        };
        let source = storage.iter().filter(|g| !writable(g)).find(free);
        let output = storage.iter().filter(|g| writable(g)).find(free);
        let source_layout = source.and_then(|g| frame_layout(module, g, words));
        let write = |role: &str, g: &Global, layout: &Layout, w: &mut Writer| {
            w.line(format!(
                "  # `{}` is named as {role}, {}",
                g.name, layout.why
            ));
            w.line(format!(
                "  {role}: {{ group: {}, binding: {}{} }}",
                g.group,
                g.binding,
                layout.fields()
            ));
        };
        if let (Some(g), Some(layout)) = (source, &source_layout) {
            taken.push((g.group, g.binding));
            write(source_role, g, layout, w);
        }
        let Some(g) = output else { continue };
        let Some(mut layout) = frame_layout(module, g, words) else {
            continue;
        };
        taken.push((g.group, g.binding));
        // Declared read-write is not read: engines declare every buffer they write so.
        let read = super::strides::reads(module, g);
        let in_place = source_layout.is_none() && !covered.contains(&source_role) && read;
        let stored = (g.variable(module)).and_then(|v| super::strides::slots(module, v));
        if in_place {
            layout.why.push_str("; read and written: skinned in place");
            write(source_role, g, &layout, w);
        } else if let (None, None, Some((k, slots))) = (layout.format, layout.encoding, &stored) {
            // Bare words stored at `i * k + c`: k words a vertex, a tangent of 3 its direction
            // alone.
            layout.stride = Some(4 * *k as u32);
            if what == "tangent" && slots.len() == 3 {
                layout.format = Some("vec3");
            }
            layout.why = format!(
                "32-bit words, byte-addressed, stored at `i * {k} + c` for c in {slots:?}: {} bytes a vertex",
                4 * k
            );
        } else if let (None, None, Some(s)) = (layout.format, layout.encoding, &source_layout) {
            // Bare words: the source's format, and its stride (a typed source's: its floats).
            let stride = match (s.stride, s.format) {
                (Some(stride), _) => Some(stride),
                (None, Some("vec3")) => Some(12),
                (None, Some("vec4")) => Some(16),
                _ => layout.stride,
            };
            layout.why = format!(
                "32-bit words, byte-addressed: {} bytes a vertex as its source's, check the stride",
                stride.unwrap_or(0)
            );
            layout.stride = stride;
        }
        write(&format!("skinned_{source_role}"), g, &layout, w);
    }
}

/// The members of the structs an array global holds, and the struct's name, if it holds them.
pub(super) fn element_struct<'a>(
    module: &'a Module,
    g: &Global,
) -> Option<(&'a [naga::StructMember], String)> {
    let e = array_element(module, g.handle)?;
    match &module.types[e].inner {
        TypeInner::Struct { members, .. } => {
            Some((members, module.types[e].name.clone().unwrap_or_default()))
        }
        _ => None,
    }
}

/// Whether `name` abbreviates a normal or a tangent stream as engines do: a word of its own among
/// `_`-separated ones (`src_n`, `dst_nrm`, `in_tan`): `n`, `nrm`, `nor`, `norm` for a normal; `t`,
/// `tan`, `tang`, `tng` for a tangent.
fn short_frame_name(name: &str, what: &str) -> bool {
    let short: &[&str] = match what {
        "normal" => &["n", "nrm", "nor", "norm", "nml"],
        _ => &["t", "tan", "tang", "tng", "tgt"],
    };
    let lower = name.to_ascii_lowercase();
    lower.split('_').any(|word| short.contains(&word))
}

/// Four 32-bit scalar members in a row named with a common stem and 0 to 3 (`j0`..`j3`,
/// `weight_0`..`weight_3`), the stem one of `stems` or named as one of `words`: the first one's
/// name and the scalar.
fn split_run(
    module: &Module,
    ms: &[naga::StructMember],
    stems: &[&str],
    words: &[&str],
) -> Option<(String, naga::Scalar)> {
    let scalar = |m: &naga::StructMember| match module.types[m.ty].inner {
        TypeInner::Scalar(s) if s.width == 4 => Some(s),
        _ => None,
    };
    let stem = |m: &naga::StructMember, k: char| {
        let n = m.name.as_deref()?.to_ascii_lowercase().replace('_', "");
        n.strip_suffix(k).map(str::to_string)
    };
    ms.windows(4).find_map(|run| {
        let s = stem(&run[0], '0')?;
        let kind = scalar(&run[0])?;
        let follows = (1..4).all(|k| {
            let digit = char::from(b'0' + k as u8);
            stem(&run[k], digit).as_ref() == Some(&s)
                && scalar(&run[k]) == Some(kind)
                && run[k].offset == run[0].offset + 4 * k as u32
        });
        let named_so = stems.contains(&s.as_str()) || named(&s, words);
        (follows && named_so).then(|| (run[0].name.clone().unwrap_or_default(), kind))
    })
}

/// A field split into three f32 members by coordinate, named with a common stem and x, y, z
/// (`px, py, pz`, `pos_x`, `normal_x`): the first one's byte offset, as the profile's offset; the
/// stem must start as the field's name does (`p`, `n`, `t`), or, for the position, be empty
/// (LÖVR's `x, y, z, nx, ny, nz`).
fn split_field(module: &Module, ms: &[naga::StructMember], what: &str) -> Option<String> {
    let float = |m: &naga::StructMember| matches!(module.types[m.ty].inner, TypeInner::Scalar(s) if s == naga::Scalar::F32);
    let stem = |m: &naga::StructMember, axis: char| {
        let n = m.name.as_deref()?.to_ascii_lowercase().replace('_', "");
        let stem = n.strip_suffix(axis)?.to_string();
        // The stem's first letter, the field's (a name may start with any Unicode letter).
        // Bare coordinates are a vertex's position only beside other fields: a struct of x, y,
        // z (and w) alone is any vector (a tangent stream's `Direction`).
        let bare = |n: &str| {
            let n = n.to_ascii_lowercase().replace('_', "");
            ["x", "y", "z", "w"].contains(&n.as_str())
        };
        let vertex = || (ms.iter()).any(|m| !m.name.as_deref().is_some_and(bare));
        let named = match stem.chars().next() {
            Some(first) => what.starts_with(first),
            None => what == "position" && vertex(),
        };
        (float(m) && named).then_some(stem)
    };
    ms.windows(3).find_map(|run| {
        let s = stem(&run[0], 'x')?;
        let next = |k: usize, axis: char| stem(&run[k], axis).filter(|t| *t == s);
        (next(1, 'y').is_some() && next(2, 'z').is_some()).then(|| run[0].offset.to_string())
    })
}

/// The floats a position, normal or tangent field of a struct holds, `field` its member's name or
/// byte offset: its member's, or where the field is split by coordinate (`tangent_x`, `_y`,
/// `_z`), 3, and 4 where a `w` member follows.
fn field_floats(module: &Module, ms: &[naga::StructMember], field: &str) -> Option<u32> {
    let k = (ms.iter())
        .position(|m| m.name.as_deref() == Some(field) || m.offset.to_string() == field)?;
    let n = match member_words(module, ms[k].ty)? {
        (n, true) => n,
        _ => return None,
    };
    let lower = |i: usize| {
        ms.get(i)
            .and_then(|m| m.name.as_deref())
            .map(str::to_ascii_lowercase)
    };
    let Some(stem) = lower(k).and_then(|x| x.strip_suffix('x').map(String::from)) else {
        return Some(n);
    };
    let axis = |i: usize, c: char| lower(k + i).is_some_and(|x| x.strip_suffix(c) == Some(&stem));
    Some(match (n, axis(1, 'y') && axis(2, 'z'), axis(3, 'w')) {
        (1, true, true) => 4,
        (1, true, false) => 3,
        _ => n,
    })
}

/// The words of 32-bit integers a member holds (a scalar, a vector or a fixed array of them),
/// or of floats (`Some((n, true))`).
fn member_words(module: &Module, ty: naga::Handle<naga::Type>) -> Option<(u32, bool)> {
    let float = |s: naga::Scalar| s.kind == ScalarKind::Float;
    match module.types[ty].inner {
        TypeInner::Scalar(s) if s.width == 4 => Some((1, float(s))),
        TypeInner::Vector { size, scalar } if scalar.width == 4 => {
            Some((size as u32, float(scalar)))
        }
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            ..
        } => {
            let (k, f) = member_words(module, base)?;
            (k == 1).then_some((n.get(), f))
        }
        _ => None,
    }
}

/// How a direction held in integer member `name` of a vertex struct is packed: by the pack and
/// unpack builtins the module calls, those for its words (one word: `pack4x8snorm`; two:
/// `pack2x16snorm` or `pack2x16float`); None for a member of floats or a packing not called.
fn packed_encoding(
    module: &Module,
    members: &[naga::StructMember],
    name: &str,
) -> Option<crate::format::Encoding> {
    let m = members.iter().find(|m| m.name.as_deref() == Some(name))?;
    words_encoding(module, &module.types[m.ty].inner).map(|(e, _)| e)
}

/// The encoding of a packed direction in a `u32` (or `vec2<u32>`) by the pack and unpack
/// builtins the module calls for words of its size, and its bytes.
fn words_encoding(module: &Module, ty: &TypeInner) -> Option<(crate::format::Encoding, u32)> {
    use crate::format::Encoding;
    use naga::MathFunction as M;
    let calls = |funs: &[M]| {
        let uses = |f: &naga::Function| {
            (f.expressions.iter())
                .any(|(_, e)| matches!(e, naga::Expression::Math { fun, .. } if funs.contains(fun)))
        };
        crate::shader::all_functions(module).any(uses)
    };
    let words = match *ty {
        TypeInner::Scalar(s) if s == naga::Scalar::U32 => 1,
        TypeInner::Vector { size, scalar } if scalar == naga::Scalar::U32 => size as u32,
        _ => return None,
    };
    let encoding = match words {
        1 if calls(&[M::Unpack4x8snorm, M::Pack4x8snorm]) => Encoding::Snorm8,
        // Biased (`* 2.0 - 1.0`, `* 0.5 + 0.5`): not a colour's or weights' unorm bytes.
        1 if calls(&[M::Unpack4x8unorm, M::Pack4x8unorm]) && biased_unorm(module) => {
            Encoding::Unorm8
        }
        2 if calls(&[M::Unpack2x16snorm, M::Pack2x16snorm]) => Encoding::Snorm16,
        2 if calls(&[M::Unpack2x16float, M::Pack2x16float]) => Encoding::F16,
        _ => return None,
    };
    Some((encoding, 4 * words))
}

/// Whether the module unpacks unorm bytes into directions, `unpack4x8unorm(w) * 2.0 - ...`, or
/// packs them so, `pack4x8unorm(d * 0.5 + ...)` (`fma` too): a constant 2 or 0.5 beside the
/// builtin, which a colour's or weights' bytes never have.
fn biased_unorm(module: &Module) -> bool {
    use naga::{BinaryOperator as B, Expression as E, MathFunction as M};
    let biased = |f: &naga::Function| {
        let constant = |h: naga::Handle<E>, want: f64| constant(module, f, h, want);
        let halved = |h: naga::Handle<E>| match f.expressions[h] {
            E::Binary {
                op: B::Multiply,
                left,
                right,
            } => constant(left, 0.5) || constant(right, 0.5),
            E::Math {
                fun: M::Fma, arg1, ..
            } => arg1.is_some_and(|a| constant(a, 0.5)),
            _ => false,
        };
        let packed = f.expressions.iter().any(|(_, e)| match *e {
            E::Math {
                fun: M::Pack4x8unorm,
                arg,
                ..
            } => match f.expressions[arg] {
                E::Binary {
                    op: B::Add,
                    left,
                    right,
                } => halved(left) || halved(right),
                E::Math { fun: M::Fma, .. } => halved(arg),
                _ => false,
            },
            _ => false,
        });
        // An unpack biased (`* 2.0`): its steps are what `unpacked_directions` follows.
        packed || !unpacked_directions(module, f).1.is_empty()
    };
    crate::shader::all_functions(module).any(biased)
}

/// Whether `h` is the float constant `want` (a literal, a splat of one).
fn constant(
    module: &Module,
    f: &naga::Function,
    h: naga::Handle<naga::Expression>,
    want: f64,
) -> bool {
    let h = match f.expressions[h] {
        naga::Expression::Splat { value, .. } => value,
        _ => h,
    };
    super::read::number(module, f, h) == Some(want)
}

/// Whether a tangent packed in `encoding` keeps no handedness: an 8-bit one whose unpacked w
/// nothing reads (`unpack4x8snorm(t).xyz`, blade's; `(unpack4x8unorm(t) * 2.0 - 1.0).xyz`).
pub(super) fn unhanded(module: &Module, encoding: crate::format::Encoding) -> bool {
    use crate::format::Encoding;
    matches!(encoding, Encoding::Snorm8 | Encoding::Unorm8) && !unpacked_w_read(module)
}

/// Whether anything reads the w of an unpacked 8-bit direction (`unpack4x8snorm`, or
/// `unpack4x8unorm` through its bias, `* 2.0 - 1.0`): an access to it, a swizzle with it, or the
/// whole vector used as it is (stored, passed, computed with).
fn unpacked_w_read(module: &Module) -> bool {
    use naga::Expression as E;
    let reads_w = |f: &naga::Function| {
        let (ends, inner) = unpacked_directions(module, f);
        let unpacked = |h: naga::Handle<E>| ends.contains(&h);
        let in_expressions = f.expressions.iter().any(|(h, e)| match *e {
            // A step of the bias itself.
            _ if inner.contains(&h) => false,
            E::Swizzle {
                size,
                vector,
                pattern,
            } => unpacked(vector) && pattern[..size as usize].contains(&naga::SwizzleComponent::W),
            E::AccessIndex { base, index } => unpacked(base) && index == 3,
            _ => super::flow::operands(e).into_iter().any(unpacked),
        });
        let mut in_statements = false;
        crate::shader::for_each_statement(&f.body, &mut |st| {
            in_statements |= match st {
                naga::Statement::Store { value, .. } => unpacked(*value),
                naga::Statement::Return { value } => value.is_some_and(unpacked),
                naga::Statement::Call { arguments, .. } => arguments.iter().any(|&a| unpacked(a)),
                _ => false,
            };
        });
        in_expressions || in_statements
    };
    crate::shader::all_functions(module).any(reads_w)
}

/// The unpacked 8-bit directions of `f`: each `unpack4x8snorm`, and each biased `unpack4x8unorm`
/// as its bias leaves it (`u * 2.0`, then `- 1.0`; an unbiased one is a colour's or weights'),
/// with the steps before that (which read the whole vector to bias it, not its w).
fn unpacked_directions(
    module: &Module,
    f: &naga::Function,
) -> (
    Vec<naga::Handle<naga::Expression>>,
    Vec<naga::Handle<naga::Expression>>,
) {
    use naga::{BinaryOperator as B, Expression as E, MathFunction as M};
    let constant = |h: naga::Handle<E>, want: f64| constant(module, f, h, want);
    // The expression that applies `op` with constant `k` to `x`, if any.
    let applied = |x: naga::Handle<E>, op: B, k: f64| {
        f.expressions.iter().find_map(|(h, e)| match *e {
            E::Binary { op: o, left, right } if o == op => {
                let with = (left == x && constant(right, k))
                    || (op == B::Multiply && right == x && constant(left, k));
                with.then_some(h)
            }
            _ => None,
        })
    };
    let (mut ends, mut inner) = (Vec::new(), Vec::new());
    for (h, e) in f.expressions.iter() {
        match *e {
            E::Math {
                fun: M::Unpack4x8snorm,
                ..
            } => ends.push(h),
            E::Math {
                fun: M::Unpack4x8unorm,
                ..
            } => {
                // Unbiased, a colour's or weights' bytes: no direction.
                let Some(doubled) = applied(h, B::Multiply, 2.0) else {
                    continue;
                };
                inner.push(h);
                match applied(doubled, B::Subtract, 1.0) {
                    Some(shifted) => {
                        inner.push(doubled);
                        ends.push(shifted);
                    }
                    None => ends.push(doubled),
                }
            }
            _ => {}
        }
    }
    (ends, inner)
}

/// A byte-addressed vertex buffer (bare 32-bit words, read-only) laid out by what the stage does
/// with the words it loads ([`super::words`]): `compute.vertices` (or `compute.influences`
/// where it holds no position), and a byte-addressed output of words by what each store carries;
/// the roles covered and the influence sets.
fn pulled_streams(
    module: &Module,
    info: &naga::valid::ModuleInfo,
    storage: &[&Global],
    (index, palette): (usize, super::Target),
    influenced: bool,
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> (Vec<&'static str>, usize) {
    use super::words;
    let output = (storage.iter()).find(|g| {
        g.writable() && words::is_words(module, g) && !taken.contains(&(g.group, g.binding))
    });
    let traced = (index, palette, output.and_then(|o| o.variable(module)));
    // Joints and weights; or a position alone in a buffer named so (a stream of its own, the
    // joints and weights in theirs, as toji's burrow keeps them), or beside a skin stream of
    // structs already found (`influenced`), whatever its name.
    let influences = |l: &words::Layout| l.joints.is_some() && l.weights.is_some();
    let keep = |g: &Global, l: &words::Layout| match influenced {
        true => l.position.is_some() && !influences(l),
        false => influences(l) || (l.position.is_some() && named(&g.name, &["pos"])),
    };
    let Some((g, layout)) = words::first_traced(module, info, storage, traced, taken, keep) else {
        return (Vec::new(), 1);
    };
    let (role, covers) = match (layout.position, influences(&layout)) {
        (Some(_), true) => ("vertices", &["positions", "joints", "weights"][..]),
        (Some(_), false) => ("vertices", &["positions"][..]),
        (None, _) => ("influences", &["joints", "weights"][..]),
    };
    taken.push((g.group, g.binding));
    words::lines(g, &layout, role)
        .into_iter()
        .for_each(|l| w.line(l));
    let mut covered = covers.to_vec();
    // Source directions among the words: a skinned stream of their own is written only.
    if role == "vertices" {
        covered.extend(layout.normal.map(|_| "normals"));
        covered.extend(layout.tangent.map(|_| "tangents"));
    }
    if let (Some(o), Some(fields)) = (output, layout.output_fields()) {
        taken.push((o.group, o.binding));
        covered.push("skinned");
        w.line(format!(
            "  # `{}` is stored at `i * k + c`: each field where the stores put the words of its source",
            o.name
        ));
        w.line(format!(
            "  output: {{ group: {}, binding: {}, {fields} }}",
            o.group, o.binding
        ));
    }
    (covered, layout.sets())
}

/// The member named as one of `words`: exactly so first (`tangent` before `bitangent_sign`), else
/// one whose name holds it (never a bitangent for a tangent).
fn named_member(
    ms: &[naga::StructMember],
    words: &[&str],
) -> Option<(String, naga::Handle<naga::Type>)> {
    let flat = |m: &naga::StructMember| {
        (m.name.as_deref().unwrap_or_default().to_ascii_lowercase()).replace('_', "")
    };
    let exact = ms.iter().find(|m| words.contains(&flat(m).as_str()));
    let bitangent =
        |m: &naga::StructMember| words.contains(&"tangent") && (flat(m).contains("bitangent"));
    exact
        .or_else(|| {
            (ms.iter())
                .find(|m| m.name.as_deref().is_some_and(|n| named(n, words)) && !bitangent(m))
        })
        .map(|m| (m.name.clone().unwrap_or_default(), m.ty))
}

/// A struct member by name, and the format its words hold.
type Named = (String, &'static str);

/// The joints and weights of an element struct, each its first member and format: named so
/// (`joints`, `weights`), else four scalars in a row (`j0`..`j3`, `w0`..`w3`: engine-kernel's).
/// A joints member's format by its words: 4 u32, u16 pairs in 2 (or in two one-word members
/// named as joints, `joints_01` and `joints_23`), u8s in 1, or 4 floats. Weights' format by the
/// words from their member on: 4 floats (in one member, or split over members that follow on, as
/// `weights_0`, `weights_1` in two vec2s), u16 pairs in 2 or u8s in 1.
pub(super) fn influence_members(
    module: &Module,
    ms: &[naga::StructMember],
) -> (Option<Named>, Option<Named>) {
    let signed = |ty: naga::Handle<naga::Type>| matches!(module.types[ty].inner, TypeInner::Vector { scalar, .. } | TypeInner::Scalar(scalar) if scalar.kind == ScalarKind::Sint);
    let joint_format = |name: &str, ty| {
        let k = ms.iter().position(|m| m.name.as_deref() == Some(name))?;
        // One-word members named as joints one after another: a second makes u16 pairs over
        // both; four named alike but for their digits, a joint a word (Unity's `index0` to
        // `index3`; not `joints01, joints23, joint_count, joint_offset`).
        let stem = |n: &str| {
            n.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_')
                .to_string()
        };
        let first = stem(name);
        let run = |alike: bool| {
            (ms[k..].iter().enumerate())
                .take_while(|(i, m)| {
                    m.offset == ms[k].offset + 4 * *i as u32
                        && member_words(module, m.ty) == Some((1, false))
                        && m.name
                            .as_deref()
                            .is_some_and(|n| named(n, JOINT_WORDS) && (!alike || stem(n) == first))
                })
                .count()
        };
        let (run, alike) = (run(false), run(true));
        match member_words(module, ty)? {
            (4, false) if signed(ty) => Some("i32x4"),
            (4, false) => Some("u32x4"),
            (2, false) => Some("u16x4"),
            (1, false) if alike >= 4 && signed(ty) => Some("i32x4"),
            (1, false) if alike >= 4 => Some("u32x4"),
            (1, false) if run >= 2 => Some("u16x4"),
            (1, false) => Some("u8x4"),
            (4, true) => Some("f32x4"),
            _ => None,
        }
    };
    let weight_format = |name: &str| {
        let k = ms.iter().position(|m| m.name.as_deref() == Some(name))?;
        match member_words(module, ms[k].ty)? {
            (2, false) => return Some("unorm16x4"),
            (1, false) => return Some("unorm8x4"),
            (_, false) => return None,
            _ => {}
        }
        let mut floats = 0;
        for m in &ms[k..] {
            match member_words(module, m.ty) {
                Some((n, true)) if m.offset == ms[k].offset + 4 * floats => floats += n,
                _ => break,
            }
            if floats >= 4 {
                break;
            }
        }
        (floats == 4).then_some("f32x4")
    };
    let joints = (named_member(ms, JOINT_WORDS))
        .and_then(|(n, ty)| Some((n.clone(), joint_format(&n, ty)?)))
        .or_else(|| {
            let (n, scalar) = split_run(module, ms, &["j", "b"], JOINT_WORDS)?;
            let format = match scalar.kind {
                ScalarKind::Uint => "u32x4",
                ScalarKind::Sint => "i32x4",
                _ => "f32x4",
            };
            Some((n, format))
        });
    let weights = named_member(ms, WEIGHT_WORDS)
        .map(|(n, _)| n)
        .or_else(|| split_run(module, ms, &["w"], WEIGHT_WORDS).map(|(n, _)| n))
        .and_then(|n| Some((n.clone(), weight_format(&n)?)));
    (joints, weights)
}

/// Vertex and skin streams as arrays of an engine's structs whose members are named as fields
/// (`array<Vertex>` with `position`, `normal`, `joints`, `weights`): `compute.vertices`,
/// `compute.influences` and `compute.output` by member name, their stride the array's; the
/// roles they cover.
fn struct_streams(
    module: &Module,
    storage: &[&Global],
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Vec<&'static str> {
    let writable = |g: &Global| g.writable();
    let member = |ms: &[naga::StructMember], words: &[&str]| named_member(ms, words);
    // A position, normal or tangent: the member named so, else three float members split by
    // coordinate (`px, py, pz`), given by the first one's byte offset.
    let field = |ms: &[naga::StructMember], what: &str| {
        let words: &[&str] = match what {
            "position" => &["pos"],
            w => &[if w == "normal" { "normal" } else { "tangent" }],
        };
        // Or abbreviated as engines do (Unity's `norm` and `tang`).
        let short = || {
            if what == "position" {
                return None;
            }
            // A float vec3 or vec4, or a packed word: not a texture coordinate's `t: f32`.
            let direction = |m: &&naga::StructMember| match module.types[m.ty].inner {
                TypeInner::Vector { size, scalar } => {
                    scalar == naga::Scalar::F32 && size as u8 >= 3
                }
                TypeInner::Scalar(s) => s == naga::Scalar::U32,
                _ => false,
            };
            (ms.iter().filter(direction))
                .filter_map(|m| m.name.as_deref())
                .find(|n| short_frame_name(n, what))
                .map(str::to_string)
        };
        member(ms, words)
            .map(|(n, _)| n)
            .or_else(short)
            .or_else(|| split_field(module, ms, what))
    };
    // A tangent of three floats is its direction alone: `tangent_format: vec3`; a direction in
    // integer words is packed, as the pack builtins the shader calls write it.
    let frame_format = |ms: &[naga::StructMember], what: &str, m: &str| {
        if let Some(e) = packed_encoding(module, ms, m) {
            let xyz = what == "tangent" && unhanded(module, e);
            let format = if xyz { ", tangent_format: vec3" } else { "" };
            return format!(", {what}_encoding: {}{format}", e.name());
        }
        if what == "tangent" && field_floats(module, ms, m) == Some(3) {
            ", tangent_format: vec3".to_string()
        } else {
            String::new()
        }
    };
    let mut covered = Vec::new();
    let mut sources = (false, false);
    for g in storage.iter().filter(|g| !writable(g)) {
        let Some((ms, name)) = element_struct(module, g) else {
            continue;
        };
        let position = field(ms, "position");
        let (joints, weights) = influence_members(module, ms);
        let role = match (&position, &joints, &weights) {
            (Some(_), _, _) if !covered.contains(&"positions") => "vertices",
            (None, Some(_), Some(_)) if !covered.contains(&"joints") => "influences",
            _ => continue,
        };
        let mut fields = format!("group: {}, binding: {}", g.group, g.binding);
        if let Some(p) = &position {
            let _ = write!(fields, ", position: {p}");
            covered.push("positions");
            for (what, has) in [("normal", &mut sources.0), ("tangent", &mut sources.1)] {
                if let Some(m) = field(ms, what) {
                    let _ = write!(fields, ", {what}: {m}{}", frame_format(ms, what, &m));
                    *has = true;
                    covered.push(if what == "normal" {
                        "normals"
                    } else {
                        "tangents"
                    });
                }
            }
        }
        if let (Some((j, jf)), Some((k, kf))) = (&joints, &weights) {
            let _ = write!(
                fields,
                ", joints: {{ offset: {j}, format: {jf} }}, weights: {{ offset: {k}, format: {kf} }}"
            );
            covered.extend(["joints", "weights"]);
        }
        taken.push((g.group, g.binding));
        w.line(format!(
            "  # `{}` is an array of `{name}` structs whose members are named as fields: byte-addressed by member, the stride the array's (check the formats: the words a member holds tell them)",
            g.name
        ));
        w.line(format!("  {role}: {{ {fields} }}"));
    }
    let output = (storage.iter())
        .filter(|g| writable(g) && !taken.contains(&(g.group, g.binding)))
        .find_map(|g| {
            let (ms, name) = element_struct(module, g)?;
            Some((g, name, field(ms, "position")?, ms))
        });
    if let Some((g, name, position, ms)) = output {
        // Read and written with no source of positions beside it: skinned in place, each field
        // written over its source.
        let in_place = !covered.contains(&"positions") && super::strides::reads(module, g);
        if in_place {
            sources = (
                field(ms, "normal").is_some(),
                field(ms, "tangent").is_some(),
            );
        }
        let mut fields = format!(
            "group: {}, binding: {}, position: {position}",
            g.group, g.binding
        );
        // A source normal or tangent: in the vertices' struct, or a read-only stream named so.
        let stream = |what: &str| {
            (storage.iter()).any(|s| {
                !writable(s)
                    && !taken.contains(&(s.group, s.binding))
                    && (named(&s.name, &[what]) || short_frame_name(&s.name, what))
            })
        };
        let sources = (
            sources.0 || stream("normal"),
            sources.1 || stream("tangent"),
        );
        // Where the stage writes it: a field it leaves is not skinned (LÖVR's tangent).
        for (what, has) in [("normal", sources.0), ("tangent", sources.1)] {
            if let (true, Some(m)) = (has, field(ms, what)) {
                if super::strides::writes_field(module, g, ms, &m) {
                    let _ = write!(fields, ", {what}: {m}{}", frame_format(ms, what, &m));
                }
            }
        }
        taken.push((g.group, g.binding));
        covered.push("skinned");
        if in_place {
            covered.extend(["positions", "normals", "tangents"]);
            w.line(format!(
                "  # `{}` is an array of `{name}` structs with a position field that the shader reads and writes, with no other source: skinned in place, the vertices and the output one buffer",
                g.name
            ));
            w.line(format!("  vertices: {{ {fields} }}"));
            w.line(format!("  output: {{ {fields} }}"));
            return covered;
        }
        w.line(format!(
            "  # `{}` is a written array of `{name}` structs with a member named as the position: the output, by member",
            g.name
        ));
        w.line(format!("  output: {{ {fields} }}"));
    }
    covered
}

/// Fields a filled binding gets besides its fill: the members the harness writes per case (a
/// vertex pool's count and palette offset), as `(group, binding)` and the text after the fill.
pub(super) type Extra = ((u32, u32), String);

/// A vertex pool, where the compute stage has one read-write array of words and a struct whose
/// integer members are named as its streams (`base_position_offset`, `updated_normal_offset`):
/// `compute.regions`, each stream's start the member named as it, and the struct a filled binding
/// that also holds the count and the palette's offset where members are named so.
fn pool_section(
    module: &Module,
    globals: &[Global],
    w: &mut Writer,
    taken: &mut Vec<(u32, u32)>,
) -> Option<Vec<Extra>> {
    let free = |g: &&Global| !taken.contains(&(g.group, g.binding));
    let words = |g: &&Global| {
        g.writable()
            && array_element(module, g.handle).is_some_and(|e| {
                matches!(module.types[e].inner, TypeInner::Scalar(s) if s.kind == ScalarKind::Uint)
            })
    };
    let pools: Vec<&Global> = globals.iter().filter(free).filter(words).collect();
    let [pool] = pools[..] else {
        return None;
    };
    let integer = |m: &naga::StructMember| {
        matches!(module.types[m.ty].inner, TypeInner::Scalar(s)
            if matches!(s.kind, ScalarKind::Uint | ScalarKind::Sint))
    };
    let (starts, members) = globals.iter().filter(free).find_map(|g| match g.ty {
        TypeInner::Struct { members, .. } if members.iter().filter(|m| integer(m)).count() >= 4 => {
            Some((g, members))
        }
        _ => None,
    })?;
    let names: Vec<String> = (members.iter())
        .filter(|m| integer(m))
        .filter_map(|m| m.name.clone())
        .collect();
    let out_words = &["updated", "skinned", "dst", "out", "result", "deformed"][..];
    let mut used: Vec<String> = Vec::new();
    let mut take = |ok: &dyn Fn(&str) -> bool| -> Option<String> {
        let n = names.iter().find(|n| !used.contains(n) && ok(n))?.clone();
        used.push(n.clone());
        Some(n)
    };
    // The per-case members first, so that a palette offset named `joint_matrix_base` is not
    // taken for the joints' start.
    let count = take(&|n| named(n, &["count", "numvert", "vertexnum"]));
    let offset = take(&|n| named(n, OFFSET_WORDS) && !named(n, &["indices"]));
    let out = |n: &str| named(n, out_words);
    let skinned: Vec<Option<String>> = ["pos", "normal", "tangent"]
        .iter()
        .map(|what| take(&|n| out(n) && named(n, &[what])))
        .collect();
    let sources: Vec<Option<String>> = ["pos", "normal", "tangent"]
        .iter()
        .map(|what| take(&|n| !out(n) && named(n, &[what])))
        .collect();
    let joints = take(&|n| named(n, &["indices", "index", "joint", "bone"]));
    let weights = take(&|n| named(n, WEIGHT_WORDS));
    let (Some(position), Some(joints), Some(weights), Some(skinned_position)) =
        (&sources[0], joints, weights, &skinned[0])
    else {
        return None;
    };
    taken.push((pool.group, pool.binding));
    w.line(format!(
        "  # `{}` is a read-write array of words and `{}`'s integer members are named as streams: a vertex pool, each stream in a region whose start (in bytes; `unit: words` if the shader indexes the pool by it directly) is the member named as it",
        pool.name, starts.name
    ));
    w.line("  regions:");
    w.line(format!("    group: {}", pool.group));
    w.line(format!("    binding: {}", pool.binding));
    w.line(format!(
        "    starts: {{ group: {}, binding: {} }}",
        starts.group, starts.binding
    ));
    w.line(format!(
        "    position: {{ start: {position} }}   # vec3, 12 bytes a vertex; `format: vec4` for 16"
    ));
    if let Some(n) = &sources[1] {
        w.line(format!("    normal: {{ start: {n} }}"));
    }
    if let Some(n) = &sources[2] {
        w.line(format!(
            "    tangent: {{ start: {n}, format: vec3 }}   # vec4 where the pool keeps the handedness"
        ));
    }
    w.line(format!(
        "    joints: {{ start: {joints}, format: u16x4 }}   # the format the pool holds them in"
    ));
    w.line(format!(
        "    weights: {{ start: {weights}, format: f32x4 }}"
    ));
    w.line(format!(
        "    skinned_position: {{ start: {skinned_position} }}"
    ));
    for (what, (out, source)) in ["normal", "tangent"]
        .iter()
        .zip(skinned[1..].iter().zip(&sources[1..]))
    {
        if let (Some(n), Some(_)) = (out, source) {
            w.line(format!("    skinned_{what}: {{ start: {n} }}"));
        }
    }
    let mut extra = String::new();
    match count {
        Some(c) => {
            let _ = write!(extra, ", count: {c}");
        }
        None => w.todo(format!(
            "no member of `{}` is named as the vertex count: give `compute.count` or the member as `bindings[].count`",
            starts.name
        )),
    }
    if let Some(o) = offset {
        let _ = write!(extra, ", palette_offset: {o}");
    }
    Some(vec![((starts.group, starts.binding), extra)])
}

/// The member of the immediate data (push constants) a compute stage's guard bounds its
/// invocations by: the vertex count (`params.vertex_count`, a lane last), as
/// `immediates.count`.
pub(super) fn immediate_count(
    module: &Module,
    immediate: naga::Handle<naga::GlobalVariable>,
) -> Option<String> {
    let mut compute =
        (module.entry_points.iter()).filter(|ep| ep.stage == naga::ShaderStage::Compute);
    compute.find_map(|ep| match super::gates::count_bound(module, ep)? {
        super::gates::Bound::Member((g, path, lane)) if g == immediate => {
            Some(super::gates::lane_path(&path, lane))
        }
        _ => None,
    })
}
