//! How a byte-addressed normal or tangent is stored: f32s, or packed as WGSL's pack builtins
//! write it, with the rounding each packing costs a unit direction.

use serde::Deserialize;

/// A direction's components in a byte-addressed vertex: 32-bit floats (default), or packed four
/// to a word as `pack4x8snorm` writes them (`snorm8`) or as `pack4x8unorm` writes them biased to
/// `e * 0.5 + 0.5` (`unorm8`: the byte normals a UNORM vertex format keeps, Wicked Engine's, read
/// back as `u / 255 * 2 - 1`), two to a word as `pack2x16snorm` (`snorm16`) or `pack2x16float`
/// (`f16`) write them. A packed vec3 fills its fourth component with 0; a vec4 tangent keeps its
/// handedness there (±1 is exact in every packing).
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Encoding {
    #[default]
    F32,
    Snorm8,
    Unorm8,
    Snorm16,
    F16,
}

impl Encoding {
    pub fn name(self) -> &'static str {
        match self {
            Encoding::F32 => "f32",
            Encoding::Snorm8 => "snorm8",
            Encoding::Unorm8 => "unorm8",
            Encoding::Snorm16 => "snorm16",
            Encoding::F16 => "f16",
        }
    }

    /// The bytes a direction of `components` (3 or 4) takes: a float each, or the packing's
    /// whole words (one for the 8-bit packings, two for the 16-bit ones), however many it uses.
    pub fn bytes(self, components: u32) -> u32 {
        match self {
            Encoding::F32 => 4 * components,
            Encoding::Snorm8 | Encoding::Unorm8 => 4,
            Encoding::Snorm16 | Encoding::F16 => 8,
        }
    }

    /// Whether the direction is packed into integer words (not read as floats).
    pub fn packed(self) -> bool {
        self != Encoding::F32
    }

    /// `v`'s first `components` as this encoding stores them, [`Encoding::bytes`] long.
    pub fn encode(self, v: &[f32], components: usize) -> Vec<u8> {
        let c = |k: usize| if k < components { v[k] } else { 0.0 };
        match self {
            Encoding::F32 => (0..components).flat_map(|k| c(k).to_le_bytes()).collect(),
            // WGSL's pack4x8snorm and pack2x16snorm: round(clamp(e, -1, 1) * (2^(n-1) - 1)).
            Encoding::Snorm8 => (0..4)
                .map(|k| (c(k).clamp(-1.0, 1.0) * 127.0).round_ties_even() as i8 as u8)
                .collect(),
            // WGSL's pack4x8unorm of the biased value: round(clamp(e * 0.5 + 0.5, 0, 1) * 255).
            Encoding::Unorm8 => (0..4)
                .map(|k| ((c(k) * 0.5 + 0.5).clamp(0.0, 1.0) * 255.0).round_ties_even() as u8)
                .collect(),
            Encoding::Snorm16 => (0..4)
                .flat_map(|k| {
                    ((c(k).clamp(-1.0, 1.0) * 32767.0).round_ties_even() as i16).to_le_bytes()
                })
                .collect(),
            Encoding::F16 => (0..4)
                .flat_map(|k| half::f16::from_f32(c(k)).to_le_bytes())
                .collect(),
        }
    }

    /// The direction in `words` (at least [`Encoding::bytes`] / 4 of them) as xyzw, as WGSL's
    /// unpack builtins read it (a snorm's most negative code reads -1); an f32 vec3's w is 0.
    pub fn decode(self, words: &[u32], components: usize) -> [f32; 4] {
        let mut out = [0.0; 4];
        match self {
            Encoding::F32 => {
                for (o, w) in out.iter_mut().zip(&words[..components]) {
                    *o = f32::from_bits(*w);
                }
            }
            Encoding::Snorm8 => {
                for (o, b) in out.iter_mut().zip(words[0].to_le_bytes()) {
                    *o = (b as i8 as f32 / 127.0).max(-1.0);
                }
            }
            Encoding::Unorm8 => {
                for (o, b) in out.iter_mut().zip(words[0].to_le_bytes()) {
                    *o = f32::from(b) / 255.0 * 2.0 - 1.0;
                }
            }
            Encoding::Snorm16 | Encoding::F16 => {
                let halves = words[..2]
                    .iter()
                    .flat_map(|w| [*w as u16, (*w >> 16) as u16]);
                for (o, h) in out.iter_mut().zip(halves) {
                    *o = match self {
                        Encoding::Snorm16 => (h as i16 as f32 / 32767.0).max(-1.0),
                        _ => half::f16::from_bits(h).to_f32(),
                    };
                }
            }
        }
        out
    }

    /// `v` as the shader reads it back from this encoding: what the CPU reference must start
    /// from where the harness uploads directions so.
    pub fn quantise<const N: usize>(self, v: [f32; N]) -> [f32; N] {
        if !self.packed() {
            return v;
        }
        let words: Vec<u32> = (self.encode(&v, N).chunks(4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        let d = self.decode(&words, N);
        std::array::from_fn(|k| d[k])
    }

    /// The most a component of a unit direction moves when written in this encoding: half a
    /// step of the packing (an f16's half ulp below 1: 2^-12); 0 for f32.
    pub fn component_error(self) -> f64 {
        match self {
            Encoding::F32 => 0.0,
            Encoding::Snorm8 => 0.5 / 127.0,
            // Half of a step of 2 / 255.
            Encoding::Unorm8 => 1.0 / 255.0,
            Encoding::Snorm16 => 0.5 / 32767.0,
            Encoding::F16 => 2f64.powi(-12),
        }
    }

    /// The most a unit direction written in this encoding may move: in length (every component
    /// off by [`Encoding::component_error`], √3 of it) and in angle, degrees (that length across
    /// the shortest the direction can have become).
    pub fn rounding(self) -> (f64, f64) {
        let length = 3f64.sqrt() * self.component_error();
        let degrees = (length / (1.0 - length)).min(1.0).asin().to_degrees();
        (length, degrees)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(bytes: &[u8]) -> Vec<u32> {
        (bytes.chunks(4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    #[test]
    fn snorm8_is_pack4x8snorm() {
        // 0.5 * 127 = 63.5 rounds to even, 64; -1 is -127 (0x81); the vec3's w is 0.
        let b = Encoding::Snorm8.encode(&[0.5, -1.0, 1.0], 3);
        assert_eq!(b, vec![64, 0x81, 127, 0]);
        let d = Encoding::Snorm8.decode(&words(&b), 3);
        assert_eq!(d, [64.0 / 127.0, -1.0, 1.0, 0.0]);
        // -128 reads -1, as unpack4x8snorm clamps it.
        assert_eq!(Encoding::Snorm8.decode(&[0x80], 3)[0], -1.0);
        // A tangent's handedness survives.
        assert_eq!(
            Encoding::Snorm8.quantise([0.0, 0.6, 0.8, -1.0]),
            [0.0, 76.0 / 127.0, 102.0 / 127.0, -1.0]
        );
    }

    #[test]
    fn unorm8_is_pack4x8unorm_of_the_biased_value() {
        // 0 -> 127.5, to even 128; -1 -> 0; 1 -> 255; 0.6 -> 204.
        let b = Encoding::Unorm8.encode(&[0.0, -1.0, 1.0, 0.6], 4);
        assert_eq!(b, vec![128, 0, 255, 204]);
        let d = Encoding::Unorm8.decode(&words(&b), 4);
        assert_eq!(
            d,
            [
                128.0 / 255.0 * 2.0 - 1.0,
                -1.0,
                1.0,
                204.0 / 255.0 * 2.0 - 1.0
            ]
        );
        // A tangent's handedness survives.
        assert_eq!(
            Encoding::Unorm8.quantise([0.0, 0.0, 1.0, -1.0])[2..],
            [1.0, -1.0]
        );
    }

    #[test]
    fn sixteen_bit_packings_take_two_words_low_half_first() {
        let b = Encoding::Snorm16.encode(&[1.0, -0.5, 0.25], 3);
        assert_eq!(b.len(), 8);
        let w = words(&b);
        assert_eq!(w[0] & 0xffff, 32767);
        assert_eq!((w[0] >> 16) as u16 as i16, -16384); // -0.5 * 32767 = -16383.5, to even
        let d = Encoding::Snorm16.decode(&w, 3);
        assert_eq!(d[3], 0.0);
        assert!((d[2] - 0.25).abs() <= 0.5 / 32767.0);
        // 1/3 is no f16: it rounds to 0x3555, 0.333251953125.
        let f = Encoding::F16.quantise([1.0 / 3.0, 1.0, -2.0]);
        assert_eq!(f, [0.333_251_95, 1.0, -2.0]);
        assert_eq!(Encoding::F32.quantise([1.0 / 3.0; 3]), [1.0 / 3.0; 3]);
    }

    #[test]
    fn rounding_bounds_every_quantised_unit_direction() {
        for e in [
            Encoding::Snorm8,
            Encoding::Unorm8,
            Encoding::Snorm16,
            Encoding::F16,
        ] {
            let (length, degrees) = e.rounding();
            for i in 0..2000 {
                // Directions spread over the sphere (a Fibonacci lattice).
                let z = 1.0 - 2.0 * (i as f64 + 0.5) / 2000.0;
                let r = (1.0 - z * z).sqrt();
                let a = i as f64 * 2.399_963;
                let u = [(r * a.cos()) as f32, (r * a.sin()) as f32, z as f32];
                let q = e.quantise(u);
                let (u, q) = (
                    glam::DVec3::from_array(u.map(f64::from)),
                    glam::DVec3::from_array(q.map(f64::from)),
                );
                assert!((q.length() - 1.0).abs() <= length + 1e-7, "{e:?} {u} {q}");
                assert!(u.angle_between(q).to_degrees() <= degrees + 1e-6, "{e:?}");
            }
        }
        // snorm8: √3 / 254 = 0.00682 in length, 0.39 degrees.
        let (length, degrees) = Encoding::Snorm8.rounding();
        assert!((length - 0.006_819).abs() < 1e-6 && (degrees - 0.3934).abs() < 1e-3);
        assert_eq!(Encoding::F32.rounding(), (0.0, 0.0));
    }
}
