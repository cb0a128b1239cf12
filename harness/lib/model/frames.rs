//! A skinned primitive's NORMAL and TANGENT, when it has them: checked, and normalised.

use gltf::accessor::Dimensions;
use gltf::mesh::Semantic;

use super::{Cx, ModelError};

/// Normals and tangents stored further than this from unit length are refused (glTF requires
/// unit vectors); nearer ones are normalised, so the reference and the GPU see the same.
const UNIT_TOLERANCE: f32 = 1e-2;

/// A primitive's normals (xyz) and tangents (xyz, w).
type Frames = (Vec<[f32; 3]>, Vec<[f32; 4]>);

/// The primitive's normals and tangents (each empty where the primitive has none), `n` per
/// attribute, finite, unit length, a tangent's w +1 or -1. Morph targets' normal and tangent
/// displacements are not applied: both paths skin the same stored frames.
pub(super) fn frames<'s, F>(
    cx: &Cx,
    attr: &dyn Fn(&str) -> String,
    prim: &gltf::Primitive,
    get: F,
    n: usize,
) -> Result<Frames, ModelError>
where
    F: Clone + for<'b> Fn(gltf::Buffer<'b>) -> Option<&'s [u8]>,
{
    let mut normals = Vec::new();
    if let Some(acc) = prim.get(&Semantic::Normals) {
        cx.check_accessor(
            &attr("NORMAL"),
            &acc,
            Dimensions::Vec3,
            cx.signed_types(),
            Some(true),
        )?;
        normals = super::quantized::read(acc.clone(), get.clone())
            .ok_or_else(|| cx.bad(attr("NORMAL"), "data lies outside its buffer"))?;
        count(cx, &attr("NORMAL"), normals.len(), n)?;
        for (v, normal) in normals.iter_mut().enumerate() {
            let xyz = unit(cx, &attr("NORMAL"), v, *normal)?;
            *normal = xyz;
        }
    }
    let mut tangents = Vec::new();
    if let Some(acc) = prim.get(&Semantic::Tangents) {
        cx.check_accessor(
            &attr("TANGENT"),
            &acc,
            Dimensions::Vec4,
            cx.signed_types(),
            Some(true),
        )?;
        tangents = super::quantized::read(acc.clone(), get.clone())
            .ok_or_else(|| cx.bad(attr("TANGENT"), "data lies outside its buffer"))?;
        count(cx, &attr("TANGENT"), tangents.len(), n)?;
        for (v, t) in tangents.iter_mut().enumerate() {
            let [x, y, z] = unit(cx, &attr("TANGENT"), v, [t[0], t[1], t[2]])?;
            if t[3] != 1.0 && t[3] != -1.0 {
                return Err(cx.bad(
                    attr("TANGENT"),
                    format!("vertex {v} has handedness w = {}, not +1 or -1", t[3]),
                ));
            }
            *t = [x, y, z, t[3]];
        }
    }
    Ok((normals, tangents))
}

fn count(cx: &Cx, field: &str, len: usize, n: usize) -> Result<(), ModelError> {
    if len == n {
        Ok(())
    } else {
        Err(cx.bad(field, format!("has {len} elements for {n} vertices")))
    }
}

/// `v` normalised, or why it cannot be: not finite, or not a unit vector.
fn unit(cx: &Cx, field: &str, vertex: usize, v: [f32; 3]) -> Result<[f32; 3], ModelError> {
    let length = glam::Vec3::from(v).length();
    if !length.is_finite() || v.iter().any(|c| !c.is_finite()) {
        return Err(cx.bad(field, format!("vertex {vertex} is not finite: {v:?}")));
    }
    if (length - 1.0).abs() > UNIT_TOLERANCE {
        return Err(cx.bad(
            field,
            format!(
                "vertex {vertex} is {v:?}, of length {length}: glTF requires unit vectors (tolerance {UNIT_TOLERANCE})"
            ),
        ));
    }
    Ok((glam::Vec3::from(v) / length).into())
}
