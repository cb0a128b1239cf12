//! The normal and tangent checks: GPU-skinned directions against the CPU reference's, by angle,
//! unit length and (tangents) handedness.

use super::{by_frame_path, Input, Outcome};
use crate::contract::Role;
use crate::format::Encoding;
use crate::gpu::compute::{Fault, Skinned};

/// Which direction a check compares.
#[derive(Clone, Copy, PartialEq)]
enum Which {
    Normals,
    Tangents,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Normals => "normal",
            Which::Tangents => "tangent",
        }
    }

    /// The profile fields that give the shader's output, for a skip's reason.
    fn fields(self) -> &'static str {
        match self {
            Which::Normals => {
                "`compute.skinned_normals` or `compute.output.normal` (with a source normal), nor `vertex.normal_function` or, for a vertex stage without a skinning function, `vertex.skinned_normal` (with `vertex.normal`)"
            }
            Which::Tangents => {
                "`compute.skinned_tangents` or `compute.output.tangent` (with a source tangent), nor `vertex.tangent_function` or, for a vertex stage without a skinning function, `vertex.skinned_tangent` (with `vertex.tangent`)"
            }
        }
    }

    fn output(self) -> Role {
        match self {
            Which::Normals => Role::SkinnedNormals,
            Which::Tangents => Role::SkinnedTangents,
        }
    }

    /// The GPU's values of this kind in a compute result, as xyzw.
    fn of(self, s: &Skinned) -> Option<&Result<Vec<[f32; 4]>, Fault>> {
        match self {
            Which::Normals => s.normals.as_ref(),
            Which::Tangents => s.tangents.as_ref(),
        }
    }
}

/// Normals as xyzw with w 0, as the GPU's are read.
fn widen(v: &[[f32; 3]]) -> Vec<[f32; 4]> {
    v.iter().map(|n| [n[0], n[1], n[2], 0.0]).collect()
}

pub(super) fn normals_match_cpu(input: &Input) -> Outcome {
    let f = &input.run.scene.frames;
    let (bind, posed) = (widen(&f.bind_normals), widen(&f.posed_normals));
    frames_match(input, Which::Normals, [&bind, &posed])
}

pub(super) fn tangents_match_cpu(input: &Input) -> Outcome {
    let f = &input.run.scene.frames;
    frames_match(
        input,
        Which::Tangents,
        [&f.bind_tangents, &f.posed_tangents],
    )
}

/// Why the check cannot apply to this shader or case, if it cannot.
fn skip_reason(input: &Input, which: Which, expected: usize) -> Option<String> {
    let name = which.name();
    if !input.ctx.contract().writes(which.output()) {
        return Some(format!(
            "the shader writes no skinned {name}s the harness can read back: its profile names no {}",
            which.fields()
        ));
    }
    (expected == 0).then(|| {
        let source = if input.case.model.is_some() {
            format!("the model has no {}", name.to_uppercase())
        } else {
            format!("the mesh has no {name}s")
        };
        format!("{source}, so there are no skinned {name}s to compare")
    })
}

/// The GPU's skinned directions at the bind pose and at the pose against the CPU's: every one
/// within the case's angle, of unit length within the angle's sine, a tangent's w the CPU's.
fn frames_match(input: &Input, which: Which, expected: [&Vec<[f32; 4]>; 2]) -> Outcome {
    if let Some(why) = skip_reason(input, which, expected[1].len()) {
        return Outcome::skip(why);
    }
    let allowed = Allowed::of(input, which);
    // A vec3 tangent has no handedness to compare.
    let handed = which == Which::Tangents && input.ctx.contract().tangent_handedness();
    let mut worst = 0.0f64;
    for (gpu, expected, label) in [
        (input.run.gpu_bind(), expected[0], "bind pose"),
        (input.run.gpu_posed(), expected[1], "posed"),
    ] {
        let gpu = match gpu.as_ref().map(|s| which.of(s)) {
            Err(e) => return Outcome::gpu(e),
            Ok(None) => return Outcome::fail("-", "the compute path read back no values"),
            Ok(Some(Err(fault))) => return Outcome::fail("output fault", format!("{fault}")),
            Ok(Some(Ok(v))) => v,
        };
        let c = input.ctx.contract();
        let length = match which {
            Which::Normals => c.frame_length,
            Which::Tangents => c.tangent_length,
        };
        let unit = length == crate::contract::FrameLength::Unit;
        match compare(gpu, expected, allowed, which, (handed, unit)) {
            Ok(angle) => worst = worst.max(angle),
            Err((figure, why)) => {
                let why = format!("{why}{}", other_reference(input, which, (handed, unit)));
                return by_frame_path(
                    input,
                    which.output(),
                    Outcome::fail(
                        figure,
                        format!("{why} ({label}, {} vertices)", expected.len()),
                    ),
                );
            }
        }
    }
    by_frame_path(
        input,
        which.output(),
        Outcome::pass(format!("{worst:.2e} deg")),
    )
}

/// Another reference the GPU's directions may match: its name in the profile's field, and its
/// directions at the bind pose and at the pose.
type Reference = (&'static str, [Vec<[f32; 4]>; 2]);

/// Where the GPU's directions fail against the profile's reference, whether they pass against
/// another at both poses (normals under another `normal_matrix`, tangents under another
/// `tangent_frame`): the hint that names it, or nothing (faults, no match).
fn other_reference(input: &Input, which: Which, flags: (bool, bool)) -> String {
    let contract = input.ctx.contract();
    let (Ok(Some(Ok(bind))), Ok(Some(Ok(posed)))) = (
        input.run.gpu_bind().as_ref().map(|s| which.of(s)),
        input.run.gpu_posed().as_ref().map(|s| which.of(s)),
    ) else {
        return String::new();
    };
    let allowed = Allowed::of(input, which);
    let passes = |b: &[[f32; 4]], p: &[[f32; 4]]| {
        compare(bind, b, allowed, which, flags).is_ok()
            && compare(posed, p, allowed, which, flags).is_ok()
    };
    let scene = &input.run.scene;
    let (source, moved) = match which {
        Which::Normals => (
            widen(&scene.mesh.normals),
            widen(&scene.normals_by(crate::contract::NormalMatrix::default())[1]),
        ),
        Which::Tangents => (
            scene.mesh.tangents.clone(),
            scene.tangents_by(crate::contract::TangentFrame::default())[1].clone(),
        ),
    };
    let same = |gpu: &[[f32; 4]], cpu: &[[f32; 4]]| {
        gpu.len() == cpu.len() && compare(gpu, cpu, allowed, which, (flags.0, false)).is_ok()
    };
    // The GPU's posed directions are the mesh's own, though the pose moves the CPU's.
    if same(posed, &source) && !same(&moved, &source) {
        let name = which.name();
        return format!(
            "; the GPU's posed {name}s are the mesh's own, unmoved by the pose: the stage returns its source {name} without the skinning's matrix (passed through, or moved by a per-object matrix alone)"
        );
    }
    // Every other reference they match: where joints only rotate, `blended` and `per_joint`
    // agree, and another case tells them apart.
    // (the field, what the profile says, each other reference by name at both poses)
    let (field, said, others): (&str, &str, Vec<Reference>) = match which {
        Which::Normals => (
            "normal_matrix",
            contract.normal_matrix.name(),
            (crate::contract::NormalMatrix::ALL.into_iter())
                .filter(|&by| by != contract.normal_matrix)
                .map(|by| (by.name(), scene.normals_by(by).each_ref().map(|v| widen(v))))
                .collect(),
        ),
        Which::Tangents => (
            "tangent_frame",
            contract.tangent_frame.name(),
            (crate::contract::TangentFrame::ALL.into_iter())
                .filter(|&by| by != contract.tangent_frame)
                .map(|by| (by.name(), scene.tangents_by(by).clone()))
                .collect(),
        ),
    };
    let matches: Vec<&str> = (others.iter())
        .filter(|(_, [b, p])| passes(b, p))
        .map(|(name, _)| *name)
        .collect();
    if matches.is_empty() {
        return String::new();
    }
    let under: Vec<String> = matches.iter().map(|m| format!("`{field}: {m}`")).collect();
    format!(
        "; they match the reference under {} (the profile says `{said}`): if the shader skins {}s so, say it there",
        under.join(" and under "),
        which.name()
    )
}

/// How far a GPU direction may be from the CPU's: the case's angle, plus the rounding of the
/// encoding the shader writes it in (a packed direction cannot be nearer than that).
#[derive(Clone, Copy, Debug)]
struct Allowed {
    degrees: f64,
    encoding: Encoding,
}

impl Allowed {
    /// The case's angle for `which`'s output as the contract encodes it.
    fn of(input: &Input, which: Which) -> Allowed {
        let contract = input.ctx.contract();
        // A field of a byte-addressed output, or a stream of its own.
        let field = (contract.packed.as_ref()).and_then(|p| {
            let f = p.frames;
            match which {
                Which::Normals => f.normal.map(|_| f.normal_encoding),
                Which::Tangents => f.tangent.map(|_| f.tangent_encoding),
            }
        });
        let stream = (contract.try_slot(which.output()))
            .and_then(|_| contract.streams.of(which.output()))
            .map(|s| s.encoding);
        Allowed {
            degrees: input.case.tolerance.max_angle_degrees,
            encoding: field.or(stream).unwrap_or_default(),
        }
    }

    fn degrees(self) -> f64 {
        self.degrees + self.encoding.rounding().1
    }

    /// How far from unit length: the angle's sine, plus the encoding's rounding.
    fn length(self) -> f64 {
        self.degrees.to_radians().sin() + self.encoding.rounding().0
    }

    fn angle_whence(self) -> String {
        let case = format!("tolerance.max_angle_degrees {}", self.degrees);
        match self.encoding.packed() {
            false => case,
            true => format!(
                "{case}, plus {:.3} for the output's {} rounding",
                self.encoding.rounding().1,
                self.encoding.name()
            ),
        }
    }

    fn length_whence(self) -> String {
        let case = "the sine of tolerance.max_angle_degrees";
        match self.encoding.packed() {
            false => case.to_string(),
            true => format!(
                "{case}, plus {:.1e} for the output's {} rounding",
                self.encoding.rounding().0,
                self.encoding.name()
            ),
        }
    }
}

/// The largest angle in degrees between `gpu` and `expected` (vertices whose expected direction
/// is zero left out), or the first vertex that breaks the tolerance: (figure, why); with
/// `handed`, a w other than the expected one breaks it too, and with `unit` a length other than
/// 1 (without, a direction of no length still does: it points nowhere).
fn compare(
    gpu: &[[f32; 4]],
    expected: &[[f32; 4]],
    allowed: Allowed,
    which: Which,
    (handed, unit): (bool, bool),
) -> Result<f64, (String, String)> {
    let name = which.name();
    let (degrees, unit_slack) = (allowed.degrees(), allowed.length());
    let mut worst = 0.0f64;
    // The lanes compared: a normal's and a vec3 tangent's three, a handed tangent's w too.
    let lanes = |x: &[f32; 4]| match handed {
        true => format!("{x:?}"),
        false => format!("{:?}", &x[..3]),
    };
    for (v, (g, e)) in gpu.iter().zip(expected).enumerate() {
        let dir = |x: &[f32; 4]| glam::DVec3::new(x[0] as f64, x[1] as f64, x[2] as f64);
        let (gd, ed) = (dir(g), dir(e));
        if ed.length() == 0.0 {
            continue;
        }
        if !gd.is_finite() {
            return Err((
                "not finite".into(),
                format!(
                    "the GPU's {name} of vertex {v} is {gs}, not finite (CPU {es})",
                    gs = lanes(g),
                    es = lanes(e)
                ),
            ));
        }
        if gd.length() < 1e-6 {
            return Err((
                "no direction".into(),
                format!(
                    "the GPU's {name} of vertex {v} is {gs}, which points nowhere (CPU {es})",
                    gs = lanes(g),
                    es = lanes(e)
                ),
            ));
        }
        let angle = gd.cross(ed).length().atan2(gd.dot(ed)).to_degrees();
        if angle > degrees {
            return Err((
                format!("{angle:.3} deg"),
                format!(
                    "the {name} of vertex {v} is {angle:.4} degrees from the CPU reference's ({}): GPU {gs} vs CPU {es}",
                    allowed.angle_whence(),
                    gs = lanes(g),
                    es = lanes(e)
                ),
            ));
        }
        let off = (gd.length() - 1.0).abs();
        if unit && off > unit_slack {
            return Err((
                format!("length {:.4}", gd.length()),
                format!(
                    "the {name} of vertex {v} has length {:.6}, not 1 (allowed {unit_slack:.1e}, {}): renormalise after skinning, or, where a later stage renormalises, say so with the profile's `frame_length: any` (`tangent_length: any` for the tangents alone); GPU {gs} vs CPU {es}",
                    gd.length(),
                    allowed.length_whence(),
                    gs = lanes(g),
                    es = lanes(e)
                ),
            ));
        }
        if handed && g[3] != e[3] {
            return Err((
                "w lost".into(),
                format!(
                    "the tangent of vertex {v} has handedness w = {}, the source's is {}: keep the tangent's w",
                    g[3], e[3]
                ),
            ));
        }
        worst = worst.max(angle);
    }
    Ok(worst)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn angle(degrees: f64) -> Allowed {
        Allowed {
            degrees,
            encoding: Encoding::F32,
        }
    }

    #[test]
    fn angles_lengths_and_handedness_decide() {
        let cpu = vec![[1.0, 0.0, 0.0, -1.0], [0.0, 0.0, 0.0, 1.0]];
        // One degree off in the plane; the second vertex has no direction and is left out.
        let (s, c) = 1f32.to_radians().sin_cos();
        let off = vec![[c, s, 0.0, -1.0], [5.0, 5.0, 5.0, 1.0]];
        assert!(
            (compare(&off, &cpu, angle(1.5), Which::Tangents, (true, true)).unwrap() - 1.0).abs()
                < 1e-4
        );
        let err = compare(&off, &cpu, angle(0.5), Which::Normals, (false, true)).unwrap_err();
        assert!(err.1.contains("vertex 0 is 1.0000 degrees"), "{}", err.1);
        let long = vec![[1.01, 0.0, 0.0, -1.0], cpu[1]];
        let err = compare(&long, &cpu, angle(0.05), Which::Normals, (false, true)).unwrap_err();
        assert!(err.1.contains("has length 1.010000, not 1"), "{}", err.1);
        // Renormalised later (`frame_length: any`): its direction alone counts, but a normal of
        // no length points nowhere.
        assert!(compare(&long, &cpu, angle(0.05), Which::Normals, (false, false)).is_ok());
        let zero = vec![[0.0, 0.0, 0.0, -1.0], cpu[1]];
        let err = compare(&zero, &cpu, angle(0.05), Which::Normals, (false, false)).unwrap_err();
        assert_eq!(err.0, "no direction");
        let flipped = vec![[1.0, 0.0, 0.0, 1.0], cpu[1]];
        assert_eq!(
            compare(&flipped, &cpu, angle(0.05), Which::Tangents, (true, true))
                .unwrap_err()
                .0,
            "w lost"
        );
        // A vec3 tangent's w is not compared.
        assert!(compare(&flipped, &cpu, angle(0.05), Which::Tangents, (false, true)).is_ok());
        assert!(compare(&flipped, &cpu, angle(0.05), Which::Normals, (false, true)).is_ok());
        // Written as snorm8, 0.3 degrees and 0.5 % long is within the packing's rounding; as
        // f32 it is not.
        let (s, c) = 0.3f32.to_radians().sin_cos();
        let rounded = vec![[c * 1.005, s * 1.005, 0.0, -1.0], cpu[1]];
        let snorm8 = Allowed {
            degrees: 0.05,
            encoding: Encoding::Snorm8,
        };
        assert!(compare(&rounded, &cpu, snorm8, Which::Normals, (false, true)).is_ok());
        let err = compare(&rounded, &cpu, angle(0.05), Which::Normals, (false, true)).unwrap_err();
        assert!(
            err.1.contains("(tolerance.max_angle_degrees 0.05)"),
            "{}",
            err.1
        );
        let (s, c) = 0.5f32.to_radians().sin_cos();
        let beyond = vec![[c, s, 0.0, -1.0], cpu[1]];
        let err = compare(&beyond, &cpu, snorm8, Which::Normals, (false, true)).unwrap_err();
        assert!(
            err.1.contains(
                "(tolerance.max_angle_degrees 0.05, plus 0.393 for the output's snorm8 rounding)"
            ),
            "{}",
            err.1
        );
        let nan = vec![[f32::NAN, 0.0, 0.0, -1.0], cpu[1]];
        assert_eq!(
            compare(&nan, &cpu, angle(0.05), Which::Normals, (false, true))
                .unwrap_err()
                .0,
            "not finite"
        );
    }
}
