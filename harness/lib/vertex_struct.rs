//! Engines' vertex data as their shaders declare it: an `array<S>` of a vertex struct read as the
//! profile's byte-addressed fields, and storage elements of other types of the same 32-bit words.
//!
//! A byte-addressed buffer (`compute.vertices`, `vertex.vertices`, `compute.output`) is bytes to
//! the harness whatever the shader declares; a struct only says which bytes the shader reads as
//! what. So a field must lie on S's scalars (not its padding), on scalars of its own kind where
//! S mixes kinds (a float position on `vec3<f32>`, joints on `u32`s; an S of one kind is a word
//! container the shader bitcasts, as an `array<u32>` is), and S's stride must be the profile's.
//! A field may name its member instead of giving its offset. Likewise a positions, joints or
//! weights array may hold `struct { ws: array<f32, 4> }` where a `vec4<f32>` is wanted: the same
//! words at the same stride.

use naga::common::wgsl::TypeContext;
use naga::{Handle, ScalarKind, TypeInner};

use crate::format::Field;

/// What a field's bytes hold: floats, or integer words (joint indices, packed unorm weights,
/// packed directions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bits {
    Float,
    Int,
}

/// A pulled vertex's fields with their kinds: joints, unorm weights and packed directions are
/// integer words, the rest floats.
pub fn pulled_fields(p: &crate::format::Pulled) -> Vec<(Field, Bits)> {
    let int_weights = p.weights != crate::format::WeightFormat::F32x4;
    p.fields()
        .into_iter()
        .map(|f| {
            let int = f.0.starts_with("joints")
                || (f.0.starts_with("weights") && int_weights)
                || p.frames.packed(&f.0);
            (f, if int { Bits::Int } else { Bits::Float })
        })
        .collect()
}

/// An output's fields with their kinds: packed directions are integer words, the rest floats.
pub fn packed_fields(p: &crate::format::Packed) -> Vec<(Field, Bits)> {
    (p.fields().into_iter())
        .map(|f| {
            let bits = if p.frames.packed(&f.0) {
                Bits::Int
            } else {
                Bits::Float
            };
            (f, bits)
        })
        .collect()
}

/// One 4-byte scalar of a struct: its byte offset, whether a float, and the top-level member
/// holding it.
#[derive(Clone, Debug, PartialEq)]
struct Word {
    offset: u32,
    float: bool,
    member: usize,
}

/// A top-level member of the struct: its name, WGSL type and bytes.
#[derive(Clone, Debug, PartialEq)]
struct Member {
    name: String,
    ty: String,
    start: u32,
    end: u32,
}

/// The struct element of an array binding (bare or wrapped in a struct) and the array's stride;
/// None for any other type (an `array<u32>` of words).
pub fn element(module: &naga::Module, ty: Handle<naga::Type>) -> Option<(Handle<naga::Type>, u32)> {
    // A struct holding the array alone reads as the array.
    let ty = match &module.types[ty].inner {
        TypeInner::Struct { members, .. } if members.len() == 1 && members[0].offset == 0 => {
            members[0].ty
        }
        _ => ty,
    };
    match module.types[ty].inner {
        TypeInner::Array { base, stride, .. }
            if matches!(module.types[base].inner, TypeInner::Struct { .. }) =>
        {
            Some((base, stride))
        }
        _ => None,
    }
}

/// Why fields the profile gives by member name (`named`, as [`crate::format::Pulled::members`]),
/// or a stride it leaves out, cannot be placed: the binding is no array of structs (`described`
/// says what it is), or its struct `element` lacks the member. One message each, with its key.
pub fn unplaced(
    module: &naga::Module,
    element: Option<(Handle<naga::Type>, u32)>,
    named: &[(String, String)],
    what: &str,
    described: impl Fn() -> String,
) -> Vec<(String, String)> {
    let message = |field: &str, member: &str| {
        match element {
        None if field == "stride" => Some(format!("`{what}.stride` is left to the shader's array of structs, but the binding is {}: give it in bytes", described())),
        None => Some(format!("`{what}.{field}` names member `{member}`, but the binding is {}, not an array of structs: give the field's byte offset", described())),
        Some((s, _)) if field != "stride" && member_offset(module, s, member).is_none() => {
            let name = module.types[s].name.as_deref().unwrap_or("_");
            let names = member_names(module, s).join(", ");
            Some(format!("`{what}.{field}` names member `{member}`, which struct {name} lacks (its members: {names})"))
        }
        Some(_) => None,
    }
    };
    (named.iter())
        .filter_map(|(field, member)| message(field, member).map(|m| (field.clone(), m)))
        .collect()
}

/// The first rule of a byte-addressed layout (`crate::format::check_fields`) that fields placed
/// by member name break, as (the field, why): the profile's rules, as numbers given are checked
/// when it loads.
pub fn placed_violation(
    stride: u32,
    fields: &[(Field, Bits)],
    what: &str,
) -> Option<(String, String)> {
    let plain: Vec<Field> = fields.iter().map(|f| f.0.clone()).collect();
    let (field, why) = crate::format::check_fields(stride, &plain).err()?;
    Some((field.clone(), format!("`{what}.{field}`: {why}")))
}

/// The byte offset of struct `s`'s member `name`, if it has one.
pub fn member_offset(module: &naga::Module, s: Handle<naga::Type>, name: &str) -> Option<u32> {
    match &module.types[s].inner {
        TypeInner::Struct { members, .. } => members
            .iter()
            .find(|m| m.name.as_deref() == Some(name))
            .map(|m| m.offset),
        _ => None,
    }
}

/// Struct `s`'s member names, for messages.
pub fn member_names(module: &naga::Module, s: Handle<naga::Type>) -> Vec<String> {
    words(module, s).1.into_iter().map(|m| m.name).collect()
}

/// Whether an array element of type `ty` at `stride` bytes holds exactly the 32-bit words `want`
/// (each its byte offset and scalar kind) at `want_stride`: the same bytes read the same way, as
/// `array<f32, 4>` or `struct { ws: array<f32, 4> }` hold a `vec4<f32>`, or
/// `struct { a: u32, b: u32 }` a `vec2<u32>`.
pub fn same_words(
    types: &naga::UniqueArena<naga::Type>,
    ty: Handle<naga::Type>,
    stride: u32,
    want: &[(u32, ScalarKind)],
    want_stride: u32,
) -> bool {
    let mut got = Vec::new();
    walk(types, ty, 0, &mut |offset, s| got.push((offset, s)));
    let word = |(offset, kind): (u32, ScalarKind)| (offset, naga::Scalar { kind, width: 4 });
    stride == want_stride
        && got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| *g == word(*w))
}

/// Whether every scalar of `ty` is 4 bytes wide (u32, i32 or f32): a struct the harness can fill
/// and read as words.
pub fn all_words(types: &naga::UniqueArena<naga::Type>, ty: Handle<naga::Type>) -> bool {
    let mut ok = true;
    walk(types, ty, 0, &mut |_, s| ok &= s.width == 4);
    ok
}

/// Calls `f` with the byte offset and type of every scalar of `ty` placed at `at`.
fn walk(
    types: &naga::UniqueArena<naga::Type>,
    ty: Handle<naga::Type>,
    at: u32,
    f: &mut impl FnMut(u32, naga::Scalar),
) {
    match &types[ty].inner {
        TypeInner::Scalar(s) | TypeInner::Atomic(s) => f(at, *s),
        TypeInner::Vector { size, scalar } => {
            for i in 0..*size as u32 {
                f(at + i * u32::from(scalar.width), *scalar);
            }
        }
        TypeInner::Matrix {
            columns,
            rows,
            scalar,
        } => {
            // Columns are aligned as vectors of `rows` (a vec3 column takes 16 bytes).
            let width = u32::from(scalar.width);
            let column = if *rows == naga::VectorSize::Bi { 2 } else { 4 } * width;
            for c in 0..*columns as u32 {
                for r in 0..*rows as u32 {
                    f(at + c * column + r * width, *scalar);
                }
            }
        }
        TypeInner::Array {
            base,
            size: naga::ArraySize::Constant(n),
            stride,
        } => {
            for i in 0..n.get() {
                walk(types, *base, at + i * stride, f);
            }
        }
        TypeInner::Struct { members, .. } => {
            for m in members {
                walk(types, m.ty, at + m.offset, f);
            }
        }
        // Anything else (a runtime-sized array, a pointer) holds no fixed scalars: a word of
        // another width makes `all_words` false.
        _ => f(
            at,
            naga::Scalar {
                kind: ScalarKind::Bool,
                width: 0,
            },
        ),
    }
}

/// The struct's words and its top-level members.
fn words(module: &naga::Module, s: Handle<naga::Type>) -> (Vec<Word>, Vec<Member>) {
    let TypeInner::Struct { members, span } = &module.types[s].inner else {
        return (Vec::new(), Vec::new());
    };
    let mut words = Vec::new();
    let mut tops = Vec::new();
    for (i, m) in members.iter().enumerate() {
        walk(&module.types, m.ty, m.offset, &mut |offset, scalar| {
            words.push(Word {
                offset,
                float: scalar.kind == ScalarKind::Float,
                member: i,
            })
        });
        let end = members.get(i + 1).map_or(*span, |n| n.offset);
        tops.push(Member {
            name: m.name.clone().unwrap_or_else(|| "_".into()),
            ty: module.types.type_to_string(m.ty),
            start: m.offset,
            end: m.offset
                + module.types[m.ty]
                    .inner
                    .size(module.to_ctx())
                    .min(end - m.offset),
        });
    }
    (words, tops)
}

/// Why the profile's `fields` (`what`, e.g. `compute.vertices`, each with its kind) cannot be
/// read from an array of struct `s` of stride `stride`: a stride other than the profile's, a
/// field on padding, on another kind's member where the struct mixes kinds, or away from the
/// member of its name. One message each, with the profile's key it is about (`stride`, a field's
/// name), naming the members involved and where a member of the field's name lies.
pub fn violations(
    module: &naga::Module,
    s: Handle<naga::Type>,
    stride: u32,
    fields: &[(Field, Bits)],
    what: &str,
    profile_stride: u32,
) -> Vec<(String, String)> {
    let name = module.types[s].name.clone().unwrap_or_else(|| "_".into());
    if stride != profile_stride {
        return vec![("stride".into(), format!(
            "`{what}.stride` is {profile_stride} bytes, but the shader's array<{name}> has a stride of {stride}"
        ))];
    }
    let (words, members) = words(module, s);
    let mixed = words.iter().any(|w| w.float) && words.iter().any(|w| !w.float);
    let mut bad = Vec::new();
    for ((field, offset, size), bits) in fields {
        let at = |m: &Member| {
            format!(
                "`{}: {}` (bytes {} to {})",
                m.name,
                m.ty,
                m.start,
                m.end - 1
            )
        };
        // Members named as the field (`normal`, `weights_0`, `pos`), if none is where it is.
        let named: Vec<&Member> = members
            .iter()
            .filter(|m| named_as(&m.name, field))
            .collect();
        let elsewhere = !named.is_empty() && named.iter().all(|m| m.start != *offset);
        let hint = match named.first() {
            Some(m) if elsewhere => format!("; {name}'s {} is at byte {}", at(m), m.start),
            _ => String::new(),
        };
        let before = bad.len();
        for byte in (*offset..offset + size).step_by(4) {
            let Some(word) = words.iter().find(|w| w.offset == byte) else {
                let after = members.iter().rev().find(|m| m.start <= byte);
                let after = after.map_or(String::new(), |m| format!(" after {}", at(m)));
                bad.push((field.clone(), format!(
                    "`{what}.{field}` (bytes {offset} to {}) reads byte {byte}, padding in struct {name}{after}{hint}",
                    offset + size - 1
                )));
                break;
            };
            if mixed && word.float != (*bits == Bits::Float) {
                let kind = match bits {
                    Bits::Float => "floats",
                    Bits::Int => "integer words",
                };
                // A normal or tangent on integer words is packed: say how to give that.
                let packed =
                    *bits == Bits::Float && ["normal", "tangent"].contains(&field.as_str());
                let hint = match packed {
                    true => format!("{hint}; a direction packed into integer words takes its encoding, `{field}_encoding: snorm8` (`pack4x8snorm`), `unorm8` (`pack4x8unorm` of the biased value), `snorm16` or `f16`"),
                    false => hint.clone(),
                };
                bad.push((
                    field.clone(),
                    format!(
                        "`{what}.{field}` (bytes {offset} to {}, {kind}) lies on {name}'s {}{hint}",
                        offset + size - 1,
                        at(&members[word.member])
                    ),
                ));
                break;
            }
        }
        if bad.len() == before && elsewhere {
            let on = words
                .iter()
                .find(|w| w.offset == *offset)
                .map(|w| &members[w.member]);
            let on = on.map_or(String::new(), |m| format!(", on {}", at(m)));
            bad.push((
                field.clone(),
                format!("`{what}.{field}` is at byte {offset}{on}{hint}"),
            ));
        }
    }
    bad
}

/// Whether a member called `member` is the field `field`'s by name: the same word, or one of them
/// the other with a suffix (`weights_0`, `normal1`) or abbreviated (`pos`, `norm`). A field of
/// one of several influence sets (`joints[1]`) has no name to go by.
fn named_as(member: &str, field: &str) -> bool {
    if field.contains('[') {
        return false;
    }
    let suffixed = |long: &str, short: &str| {
        long.strip_prefix(short).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(|c: char| c == '_' || c.is_ascii_digit())
        })
    };
    suffixed(member, field) || (member.len() >= 3 && field.starts_with(member))
}

/// The bytes of struct `s`'s members that no field of `fields` touches: an output struct's other
/// members (a texture coordinate copied through), which the shader may write.
pub fn others(module: &naga::Module, s: Handle<naga::Type>, fields: &[Field]) -> Vec<(u32, u32)> {
    let (words, members) = words(module, s);
    let touched = |i: usize| {
        words.iter().filter(|w| w.member == i).any(|w| {
            fields
                .iter()
                .any(|(_, o, n)| (*o..o + n).contains(&w.offset))
        })
    };
    members
        .iter()
        .enumerate()
        .filter(|&(i, _)| !touched(i))
        .map(|(_, m)| (m.start, m.end - m.start))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> (naga::Module, Handle<naga::Type>, u32) {
        let module = naga::front::wgsl::parse_str(src).unwrap();
        let var = module.global_variables.iter().next().unwrap().1;
        let (s, stride) = element(&module, var.ty).expect("an array of structs");
        (module, s, stride)
    }

    const VERTEX: &str = "struct Vertex { position: vec3<f32>, normal: vec3<f32>, uv: vec2<f32>, joints: vec2<u32>, weights: vec4<f32> }\n@group(0) @binding(0) var<storage, read> vertices: array<Vertex>;\n";

    fn field(name: &str, offset: u32, size: u32, bits: Bits) -> (Field, Bits) {
        ((name.to_string(), offset, size), bits)
    }

    #[test]
    fn fields_on_their_members_pass() {
        let (module, s, stride) = parse(VERTEX);
        // position 0, normal 16, uv 32, joints 40, weights 48: 64 bytes.
        assert_eq!(stride, 64);
        let fields = [
            field("position", 0, 12, Bits::Float),
            field("normal", 16, 12, Bits::Float),
            field("joints", 40, 8, Bits::Int),
            field("weights", 48, 16, Bits::Float),
        ];
        assert_eq!(
            violations(&module, s, stride, &fields, "compute.vertices", 64),
            vec![]
        );
        let plain: Vec<Field> = fields.iter().map(|f| f.0.clone()).collect();
        assert_eq!(
            others(&module, s, &plain),
            vec![(32, 8)],
            "uv alone is untouched"
        );
    }

    #[test]
    fn a_field_on_padding_or_another_kind_names_the_members() {
        let (module, s, stride) = parse(VERTEX);
        let v = |f: (Field, Bits)| -> Vec<String> {
            let why = violations(
                &module,
                s,
                stride,
                std::slice::from_ref(&f),
                "compute.vertices",
                64,
            );
            assert!(
                why.iter().all(|w| w.0 == f.0 .0),
                "each about its field: {why:?}"
            );
            why.into_iter().map(|w| w.1).collect()
        };
        let pad = v(field("normal", 12, 12, Bits::Float));
        assert_eq!(pad.len(), 1);
        assert!(pad[0].contains("reads byte 12, padding in struct Vertex after `position: vec3<f32>` (bytes 0 to 11)"), "{}", pad[0]);
        assert!(
            pad[0].contains("Vertex's `normal: vec3<f32>` (bytes 16 to 27) is at byte 16"),
            "{}",
            pad[0]
        );
        let kind = v(field("joints", 48, 8, Bits::Int));
        assert!(
            kind[0]
                .contains("integer words) lies on Vertex's `weights: vec4<f32>` (bytes 48 to 63)"),
            "{}",
            kind[0]
        );
        assert!(
            kind[0].contains("`joints: vec2<u32>` (bytes 40 to 47) is at byte 40"),
            "{}",
            kind[0]
        );
        // All floats, but on the normal: the position's member is elsewhere.
        let mid = v(field("position", 16, 12, Bits::Float));
        assert_eq!(mid.len(), 1, "{mid:?}");
        assert!(mid[0].contains("`compute.vertices.position` is at byte 16, on `normal: vec3<f32>` (bytes 16 to 27); Vertex's `position: vec3<f32>` (bytes 0 to 11) is at byte 0"), "{}", mid[0]);
        assert!(
            named_as("weights_0", "weights")
                && named_as("pos", "position")
                && named_as("normal1", "normal")
        );
        assert!(
            !named_as("normals_ws", "normal")
                && !named_as("joints", "joints[1]")
                && !named_as("uv", "tangent")
        );
        let stride_msg = violations(&module, s, stride, &[], "compute.vertices", 48);
        assert_eq!(stride_msg[0].0, "stride");
        assert!(stride_msg[0].1.contains("`compute.vertices.stride` is 48 bytes, but the shader's array<Vertex> has a stride of 64"), "{stride_msg:?}");
    }

    #[test]
    fn elements_of_the_same_words_are_the_same_data() {
        let module = naga::front::wgsl::parse_str("struct W { ws: array<f32, 4> }\nstruct J { a: u32, b: u32 }\nstruct P { p: vec3<f32>, pad: f32 }\nstruct S { x: f32, y: f32, z: f32 }\n@group(0) @binding(0) var<storage, read> a: array<W>;\n@group(0) @binding(1) var<storage, read> b: array<J>;\n@group(0) @binding(2) var<storage, read> c: array<P>;\n@group(0) @binding(3) var<storage, read> d: array<S>;\n").unwrap();
        let types = &module.types;
        let elem = |i: usize| {
            let var = module.global_variables.iter().nth(i).unwrap().1;
            match types[var.ty].inner {
                TypeInner::Array { base, stride, .. } => (base, stride),
                _ => unreachable!(),
            }
        };
        let (f, u) = (ScalarKind::Float, ScalarKind::Uint);
        let floats4 = [(0, f), (4, f), (8, f), (12, f)];
        let (w, ws) = elem(0);
        assert!(same_words(types, w, ws, &floats4, 16));
        let ints4 = floats4.map(|(o, _)| (o, u));
        assert!(
            !same_words(types, w, ws, &ints4, 16),
            "floats are not integer words"
        );
        let (j, js) = elem(1);
        assert!(same_words(types, j, js, &[(0, u), (4, u)], 8));
        let signed = [(0, ScalarKind::Sint), (4, ScalarKind::Sint)];
        assert!(
            !same_words(types, j, js, &signed, 8),
            "u32 words are not i32 ones"
        );
        // A vec3 and its padding word: four words where three are wanted.
        let (p, ps) = elem(2);
        assert!(!same_words(types, p, ps, &floats4[..3], 16));
        // Three packed floats: 12 bytes a vertex, not a vec3<f32>'s 16.
        let (v, vs) = elem(3);
        assert!(!same_words(types, v, vs, &floats4[..3], 16));
    }

    #[test]
    fn a_struct_of_one_kind_is_a_word_container() {
        // All u32: the shader bitcasts, as from an array<u32>; fields of any kind lie on words.
        let (module, s, stride) = parse("struct W { data: array<u32, 12> }\n@group(0) @binding(0) var<storage, read> v: array<W>;\n");
        let fields = [
            field("position", 0, 12, Bits::Float),
            field("joints", 12, 8, Bits::Int),
        ];
        assert!(violations(&module, s, stride, &fields, "compute.vertices", 48).is_empty());
        assert!(all_words(&module.types, s));
        let (half, s16, _) = parse("enable f16;\nstruct H { a: vec4<f16>, b: vec4<f32> }\n@group(0) @binding(0) var<storage, read> v: array<H>;\n");
        assert!(!all_words(&half.types, s16));
    }
}
