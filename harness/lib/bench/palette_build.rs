//! The palette build table: the fast f32 builder against the f64 reference, 16 to 1024 joints.

use std::hint::black_box;

use glam::Mat4;
use serde::{Deserialize, Serialize};

use super::fast::{self, PaletteBuilder};
use super::measure::{measure, Plan};
use super::{bent_chain, Mode};

/// One timed palette build.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct PaletteRow {
    /// Which builder: the fast f32 one or the f64 reference (`Skeleton::palette`).
    pub builder: String,
    pub joints: usize,
    pub samples: usize,
    pub median_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    /// 64 per joint.
    pub palette_bytes: usize,
}

/// The joint counts of the palette build.
pub const PALETTE_JOINTS: [usize; 4] = [16, 64, 256, 1024];

/// Palette builds for 16, 64, 256 and 1024 joints of a bent chain: the fast f32 builder (into a
/// preallocated aligned palette, from f32 locals) and the f64 reference `Skeleton::palette`.
/// `Mode::Off` returns no rows.
pub fn palette_build(mode: Mode) -> Vec<PaletteRow> {
    if mode == Mode::Off {
        return Vec::new();
    }
    let plan = Plan::of(mode);
    let mut rows = Vec::new();
    for &joints in &PALETTE_JOINTS {
        let (skeleton, pose) = bent_chain(joints, 0.1);
        let locals = fast::locals_f32(&pose);
        let mut builder = PaletteBuilder::new(&skeleton);
        let mut out = builder.palette();
        let fast = measure(&plan, || {
            builder.build(black_box(&locals), &mut out);
            black_box(&mut out);
        });
        let oracle = measure(&plan, || {
            black_box(skeleton.palette(black_box(&pose)));
        });
        for (name, s) in [("fast f32", fast), ("reference f64", oracle)] {
            rows.push(PaletteRow {
                builder: name.to_string(),
                joints,
                samples: s.samples,
                median_us: s.median * 1e6,
                min_us: s.min * 1e6,
                max_us: s.max * 1e6,
                palette_bytes: joints * std::mem::size_of::<Mat4>(),
            });
        }
    }
    rows
}
