//! A vertex pool: the compute stage's streams in one buffer, each tightly packed in a region of
//! its own whose start the shader reads from a member of a buffer the harness fills (rend3's
//! skinning pass reads and writes its mesh this way).
//!
//! The harness places the regions itself, apart from each other and from byte 0, in an order
//! other than the profile's, so that a shader that ignores a start, or takes one stream's start
//! for another's, reads or writes the wrong bytes; a write anywhere but the output regions is a
//! fault.

use crate::format::{JointFormat, WeightFormat};

/// One stream of the pool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stream {
    Position,
    Normal,
    Tangent,
    Joints,
    Weights,
    SkinnedPosition,
    SkinnedNormal,
    SkinnedTangent,
}

impl Stream {
    /// As the profile names it (`compute.regions.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Stream::Position => "position",
            Stream::Normal => "normal",
            Stream::Tangent => "tangent",
            Stream::Joints => "joints",
            Stream::Weights => "weights",
            Stream::SkinnedPosition => "skinned_position",
            Stream::SkinnedNormal => "skinned_normal",
            Stream::SkinnedTangent => "skinned_tangent",
        }
    }

    /// Whether the shader writes it.
    pub fn is_output(self) -> bool {
        matches!(
            self,
            Stream::SkinnedPosition | Stream::SkinnedNormal | Stream::SkinnedTangent
        )
    }
}

/// The streams of a pool and how each is packed.
#[derive(Clone, Debug, PartialEq)]
pub struct Regions {
    /// Each stream the pool holds, in the profile's order, with its bytes per vertex: 4 a float
    /// of a position, normal or tangent (3 or 4 floats), the joints' and weights' formats' bytes
    /// times the influence sets (a vertex's sets one after another).
    pub streams: Vec<(Stream, u32)>,
    pub joints: JointFormat,
    pub weights: WeightFormat,
    /// Whether the shader reads the starts as u32 word indices rather than byte offsets.
    pub in_words: bool,
}

/// Where one region lies in the pool, in bytes: its start and length (an output's includes the
/// guard after its vertices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub stream: Stream,
    /// Bytes per vertex.
    pub size: u32,
    pub start: u32,
    pub len: u32,
}

/// Bytes of filler before the first region and between regions: a start read as 0, or one
/// stream's start taken for another's, lands on no data.
pub const GAP: u32 = 256;

impl Regions {
    /// The bytes per vertex of `stream`, if the pool holds it.
    pub fn size_of(&self, stream: Stream) -> Option<u32> {
        self.streams
            .iter()
            .find(|(s, _)| *s == stream)
            .map(|&(_, n)| n)
    }

    /// The regions of a case of `n` vertices, each output followed by `guard` vertices' worth of
    /// guard, and the pool's length: the profile's last stream first, each region starting on a
    /// multiple of [`GAP`] at least [`GAP`] bytes after the one before it, the first at `GAP`.
    pub fn place(&self, n: usize, guard: usize) -> (Vec<Placed>, u32) {
        let mut at = GAP;
        let mut out = Vec::new();
        for &(stream, size) in self.streams.iter().rev() {
            let vertices = n + if stream.is_output() { guard } else { 0 };
            let len = size * vertices as u32;
            out.push(Placed {
                stream,
                size,
                start: at,
                len,
            });
            at = (at + len).div_ceil(GAP) * GAP + GAP;
        }
        (out, at)
    }

    /// The value the shader reads as a region's start: its byte offset, or its word index.
    pub fn start_value(&self, start: u32) -> u32 {
        if self.in_words {
            start / 4
        } else {
            start
        }
    }
}

/// Where a byte of the pool lies, as a message names it: in which region (and which vertex of
/// it), or in the gap before one.
pub fn describe(placed: &[Placed], byte: u32) -> String {
    let mut by_start: Vec<&Placed> = placed.iter().collect();
    by_start.sort_by_key(|p| p.start);
    for p in &by_start {
        if byte < p.start {
            return format!("in the gap before the `{}` region", p.stream.name());
        }
        if byte < p.start + p.len {
            return format!(
                "in the `{}` region (vertex {}, byte {} of it)",
                p.stream.name(),
                (byte - p.start) / p.size,
                (byte - p.start) % p.size
            );
        }
    }
    "past the last region".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool() -> Regions {
        Regions {
            streams: vec![
                (Stream::Position, 12),
                (Stream::Joints, 8),
                (Stream::Weights, 16),
                (Stream::SkinnedPosition, 12),
            ],
            joints: JointFormat::U16x4,
            weights: WeightFormat::F32x4,
            in_words: false,
        }
    }

    #[test]
    fn regions_lie_apart_in_reverse_order_past_a_gap() {
        // 10 vertices, a guard of 2 after the output: the output 12 * 12 = 144 bytes at 256,
        // ending at 400; the next region starts at 400 rounded up to 512, plus a gap: weights,
        // 160 bytes at 768 (to 928), joints 80 at 1280 (to 1360), positions 120 at 1792 (to
        // 1912); the pool ends a gap after them, at 2304.
        let (placed, len) = pool().place(10, 2);
        let starts: Vec<(Stream, u32, u32)> =
            placed.iter().map(|p| (p.stream, p.start, p.len)).collect();
        assert_eq!(
            starts,
            vec![
                (Stream::SkinnedPosition, 256, 144),
                (Stream::Weights, 768, 160),
                (Stream::Joints, 1280, 80),
                (Stream::Position, 1792, 120),
            ]
        );
        assert_eq!(len, 2304);
        // Starts as words: a quarter of each byte offset.
        let words = Regions {
            in_words: true,
            ..pool()
        };
        assert_eq!(words.start_value(1792), 448);
        assert_eq!(pool().start_value(1792), 1792);
    }

    #[test]
    fn a_byte_is_named_by_its_region_and_vertex() {
        let (placed, _) = pool().place(10, 2);
        assert_eq!(
            describe(&placed, 100),
            "in the gap before the `skinned_position` region"
        );
        assert_eq!(
            describe(&placed, 1792 + 12 * 3 + 4),
            "in the `position` region (vertex 3, byte 4 of it)"
        );
        assert_eq!(
            describe(&placed, 700),
            "in the gap before the `weights` region"
        );
        assert_eq!(describe(&placed, 2200), "past the last region");
    }

    #[test]
    fn an_empty_case_still_keeps_its_regions_apart() {
        let (placed, len) = pool().place(0, 0);
        let starts: Vec<u32> = placed.iter().map(|p| p.start).collect();
        assert_eq!(starts, vec![256, 512, 768, 1024]);
        assert_eq!(len, 1280);
    }
}
