//! Buffer and image comparisons with their tolerances.

use image::{Rgba, RgbaImage};
use serde::{Deserialize, Serialize};

/// How the golden comparison decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Count pixels whose largest channel difference exceeds a threshold.
    Channel,
    /// NVIDIA's FLIP perceptual difference: mean and a percentile of the error map.
    Flip,
}

impl Metric {
    /// As a case file writes it.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Channel => "channel",
            Metric::Flip => "flip",
        }
    }
}

/// The largest per-coordinate difference between two position lists, and where it is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Worst {
    /// Largest |a - b| over all coordinates; infinite when a value is NaN or the lengths differ.
    pub error: f64,
    pub vertex: usize,
}

/// Largest absolute difference between `a` and `b`, coordinate by coordinate.
pub fn max_abs_error(a: &[[f32; 3]], b: &[[f32; 3]]) -> Worst {
    if a.len() != b.len() {
        return Worst {
            error: f64::INFINITY,
            vertex: a.len().min(b.len()),
        };
    }
    let mut worst = Worst {
        error: 0.0,
        vertex: 0,
    };
    for (i, (p, q)) in a.iter().zip(b).enumerate() {
        for k in 0..3 {
            let d = (p[k] as f64 - q[k] as f64).abs();
            // NaN compares false: count it as the worst possible error.
            let d = if d.is_nan() { f64::INFINITY } else { d };
            if d > worst.error {
                worst = Worst {
                    error: d,
                    vertex: i,
                };
            }
        }
    }
    worst
}

/// Pixels that something was drawn on (alpha > 0; the target is cleared to transparent black).
pub fn coverage(img: &RgbaImage) -> u64 {
    img.pixels().filter(|p| p[3] > 0).count() as u64
}

/// Pixels that differ in any channel.
pub fn changed_pixels(a: &RgbaImage, b: &RgbaImage) -> u64 {
    a.pixels().zip(b.pixels()).filter(|(p, q)| p != q).count() as u64
}

/// How an image differs from its expected version.
pub struct ImageDiff {
    /// Pixels whose largest channel difference exceeds the threshold (and, where sub-pixel shifts
    /// are forgiven, that no shift explains).
    pub differing: u64,
    /// Pixels beyond the threshold that a sub-pixel shift explains (see [`shift_explains`]); 0
    /// where shifts are not forgiven.
    pub shifted: u64,
    /// Whether shifts were looked for: asked, and at most [`SHIFT_SEARCH_SHARE`] of the pixels
    /// beyond the threshold.
    pub shift_searched: bool,
    /// Largest channel difference anywhere.
    pub max_channel: u8,
    /// Red where a pixel differs, yellow where a shift explains it, the expected image dimmed
    /// elsewhere.
    pub image: RgbaImage,
}

/// Above one pixel in this many beyond the threshold, no shift is looked for: a shift moves
/// edges and ramps, not whole areas, and the search costs about 15 us a pixel.
pub const SHIFT_SEARCH_SHARE: u64 = 64;

/// Steps per pixel of the sub-pixel search along one axis (the other is solved exactly).
const SHIFT_STEPS: u32 = 64;

/// How far past a block's pixels a shifted sample may lie, in pixels: a varying's plane sampled
/// a fraction of a pixel further on continues its ramp beyond the last covered pixel's value.
const OVERSHOOT: f32 = 0.25;

/// Compares `actual` against `expected`, counting pixels whose channels differ by more than `threshold`.
/// Images of different sizes differ everywhere.
pub fn diff_images(expected: &RgbaImage, actual: &RgbaImage, threshold: u8) -> ImageDiff {
    diff_images_with(expected, actual, threshold, false)
}

/// As [`diff_images`]; with `subpixel`, a pixel beyond the threshold still counts as equal where a
/// sub-pixel shift explains it both ways ([`shift_explains`]): GPUs that rasterise conformantly
/// sample a varying at slightly different points, which moves steep colour ramps and silhouettes
/// by a fraction of a pixel.
pub fn diff_images_with(
    expected: &RgbaImage,
    actual: &RgbaImage,
    threshold: u8,
    subpixel: bool,
) -> ImageDiff {
    if expected.dimensions() != actual.dimensions() {
        let (w, h) = actual.dimensions();
        return ImageDiff {
            differing: (w as u64 * h as u64).max(1),
            shifted: 0,
            shift_searched: false,
            max_channel: 255,
            image: RgbaImage::from_pixel(w, h, Rgba([255, 0, 0, 255])),
        };
    }
    // Each pixel's largest channel difference, in the images' pixel order.
    let channel: Vec<u8> = (expected.pixels().zip(actual.pixels()))
        .map(|(e, a)| (0..4).map(|c| e[c].abs_diff(a[c])).max().unwrap_or(0))
        .collect();
    let (w, h) = actual.dimensions();
    let beyond = channel.iter().filter(|&&d| d > threshold).count() as u64;
    let search = subpixel && beyond * SHIFT_SEARCH_SHARE <= w as u64 * h as u64;
    let (mut differing, mut shifted) = (0, 0);
    let max_channel = channel.iter().copied().max().unwrap_or(0);
    let mut image = RgbaImage::new(w, h);
    for ((x, y, out), &d) in image.enumerate_pixels_mut().zip(&channel) {
        let (e, a) = (expected.get_pixel(x, y), actual.get_pixel(x, y));
        *out = if d <= threshold {
            Rgba([e[0] / 4, e[1] / 4, e[2] / 4, 255])
        } else if search
            && shift_explains(expected, x, y, a.0, threshold)
            && shift_explains(actual, x, y, e.0, threshold)
        {
            shifted += 1;
            Rgba([255, 255, 0, 255])
        } else {
            differing += 1;
            Rgba([255, 0, 0, 255])
        };
    }
    ImageDiff {
        differing,
        shifted,
        shift_searched: search,
        max_channel,
        image,
    }
}

/// Whether `image`, sampled at a point less than one pixel from the centre of pixel (x, y), gives
/// `value` within `threshold` in every channel (and half a step more, the render's 8-bit
/// rounding): some bilinear blend of one of the four 2x2 blocks of pixels that hold (x, y), with
/// the same weights for all four channels, each weight up to [`OVERSHOOT`] past 0 or 1. A blend
/// of a block with a transparent pixel keeps alpha 255 only at weight 0 on it, so colour across a
/// silhouette comes from the covered side, and a colour that no neighbour has is never explained.
pub fn shift_explains(image: &RgbaImage, x: u32, y: u32, value: [u8; 4], threshold: u8) -> bool {
    let (w, h) = image.dimensions();
    // The blocks' top-left pixels; one left of or above the image wraps and is filtered out.
    let (left, up) = (x.wrapping_sub(1), y.wrapping_sub(1));
    let px = |x: u32, y: u32| image.get_pixel(x, y).0.map(f32::from);
    let target = value.map(f32::from);
    let limit = f32::from(threshold) + 0.5;
    [(left, up), (x, up), (left, y), (x, y)]
        .into_iter()
        .filter(|&(bx, by)| bx < w.saturating_sub(1) && by < h.saturating_sub(1))
        .any(|(bx, by)| {
            let [p00, p10, p01, p11] = [
                px(bx, by),
                px(bx + 1, by),
                px(bx, by + 1),
                px(bx + 1, by + 1),
            ];
            // Sampled along one axis, solved exactly along the other, then the other way round,
            // so that a ramp along either axis is matched however steep it is.
            (0..=SHIFT_STEPS).any(|i| {
                let t = i as f32 / SHIFT_STEPS as f32 * (1.0 + 2.0 * OVERSHOOT) - OVERSHOOT;
                let lerp = |a: [f32; 4], b: [f32; 4]| -> [f32; 4] {
                    std::array::from_fn(|c| a[c] + (b[c] - a[c]) * t)
                };
                blend_reaches(lerp(p00, p01), lerp(p10, p11), target, limit)
                    || blend_reaches(lerp(p00, p10), lerp(p01, p11), target, limit)
            })
        })
}

/// Whether some s in [-OVERSHOOT, 1 + OVERSHOOT] puts `from + (to - from) * s` within `limit` of
/// `target` in every channel at once: the intersection of each channel's interval of s.
fn blend_reaches(from: [f32; 4], to: [f32; 4], target: [f32; 4], limit: f32) -> bool {
    let (mut lo, mut hi) = (-OVERSHOOT, 1.0 + OVERSHOOT);
    for c in 0..4 {
        let (start, slope) = (from[c] - target[c], to[c] - from[c]);
        if slope == 0.0 {
            if start.abs() >= limit {
                return false;
            }
            continue;
        }
        // |start + slope * s| < limit
        let (a, b) = ((-limit - start) / slope, (limit - start) / slope);
        lo = lo.max(a.min(b));
        hi = hi.min(a.max(b));
    }
    lo <= hi
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_error_finds_the_worst_coordinate() {
        let a = [[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]];
        let b = [[0.0, 0.0, 0.0], [1.0, 2.5, 3.0]];
        assert_eq!(
            max_abs_error(&a, &b),
            Worst {
                error: 0.5,
                vertex: 1
            }
        );
    }

    #[test]
    fn nan_and_length_mismatch_are_infinite() {
        assert!(max_abs_error(&[[f32::NAN, 0.0, 0.0]], &[[0.0; 3]])
            .error
            .is_infinite());
        assert!(max_abs_error(&[[0.0; 3]], &[]).error.is_infinite());
    }

    #[test]
    fn coverage_and_changes_count_pixels() {
        let mut a = RgbaImage::new(4, 4);
        a.put_pixel(1, 1, Rgba([10, 20, 30, 255]));
        let mut b = a.clone();
        b.put_pixel(2, 2, Rgba([1, 0, 0, 255]));
        assert_eq!(coverage(&a), 1);
        assert_eq!(coverage(&b), 2);
        assert_eq!(changed_pixels(&a, &b), 1);
    }

    #[test]
    fn diff_respects_threshold() {
        let a = RgbaImage::from_pixel(2, 2, Rgba([100, 100, 100, 255]));
        let mut b = a.clone();
        b.put_pixel(0, 0, Rgba([101, 100, 100, 255]));
        b.put_pixel(1, 1, Rgba([110, 100, 100, 255]));
        let d = diff_images(&a, &b, 1);
        assert_eq!((d.differing, d.max_channel), (1, 10));
        assert_eq!(d.image.get_pixel(1, 1), &Rgba([255, 0, 0, 255]));
        assert_eq!(diff_images(&a, &RgbaImage::new(3, 2), 0).differing, 6);
    }

    /// A grey ramp along x, 0, 100, 200, then 250 up to x = 15, 8 rows (opaque).
    fn ramp() -> RgbaImage {
        RgbaImage::from_fn(16, 8, |x, _| {
            let v = [0u8, 100, 200, 250][x.min(3) as usize];
            Rgba([v, v, v, 255])
        })
    }

    #[test]
    fn a_value_between_neighbours_is_a_shift() {
        let img = ramp();
        // 130 lies between pixel 1 (100) and pixel 2 (200): sampled 0.3 px right of pixel 1.
        assert!(shift_explains(&img, 1, 0, [130, 130, 130, 255], 0));
        // 60 lies between pixel 0 (0) and pixel 1 (100), to its left.
        assert!(shift_explains(&img, 1, 0, [60, 60, 60, 255], 0));
        // 215 continues the ramp a little past pixel 2 (200 + 15 of the 100 a pixel): a sample
        // 0.15 px further on; 240 would need 0.4 px past it.
        assert!(shift_explains(&img, 1, 0, [215, 215, 215, 255], 0));
        assert!(!shift_explains(&img, 1, 0, [240, 240, 240, 255], 1));
        // The channels move together: grey 130 is between, (130, 100, 100) is no blend.
        assert!(!shift_explains(&img, 1, 0, [130, 100, 100, 255], 1));
    }

    #[test]
    fn a_silhouette_moves_by_a_pixel_but_no_colour_appears() {
        // Pixel 1 opaque red beside transparent pixel 0.
        let mut img = RgbaImage::new(3, 2);
        for y in 0..2 {
            img.put_pixel(1, y, Rgba([255, 0, 0, 255]));
            img.put_pixel(2, y, Rgba([255, 0, 0, 255]));
        }
        // The edge pixel left uncovered: the shift onto the transparent neighbour.
        assert!(shift_explains(&img, 1, 0, [0, 0, 0, 0], 0));
        // Covered with the neighbour's colour: a shift the other way.
        assert!(shift_explains(&img, 0, 0, [255, 0, 0, 255], 0));
        // Covered in a colour nobody has, or half transparent: no shift gives it.
        assert!(!shift_explains(&img, 0, 0, [0, 255, 0, 255], 1));
        assert!(!shift_explains(&img, 2, 1, [255, 0, 0, 128], 1));
    }

    #[test]
    fn subpixel_diff_counts_shifts_apart() {
        let golden = ramp();
        let mut actual = golden.clone();
        actual.put_pixel(1, 0, Rgba([103, 103, 103, 255])); // explained both ways
        actual.put_pixel(2, 1, Rgba([0, 0, 0, 0])); // a hole in the middle: no
        let strict = diff_images(&golden, &actual, 1);
        assert_eq!((strict.differing, strict.shifted), (2, 0));
        let d = diff_images_with(&golden, &actual, 1, true);
        assert_eq!((d.differing, d.shifted), (1, 1));
        assert_eq!(d.image.get_pixel(1, 0), &Rgba([255, 255, 0, 255]));
        assert_eq!(d.image.get_pixel(2, 1), &Rgba([255, 0, 0, 255]));
        assert!(d.shift_searched && !strict.shift_searched);
    }

    #[test]
    fn no_shift_is_searched_where_whole_areas_differ() {
        // 8x8 = 64 pixels: one beyond the threshold is searched, two are not.
        let golden = RgbaImage::from_pixel(8, 8, Rgba([100, 100, 100, 255]));
        let mut actual = golden.clone();
        actual.put_pixel(3, 3, Rgba([180, 180, 180, 255]));
        let d = diff_images_with(&golden, &actual, 1, true);
        assert!(d.shift_searched && d.differing == 1);
        actual.put_pixel(5, 5, Rgba([180, 180, 180, 255]));
        let d = diff_images_with(&golden, &actual, 1, true);
        assert!(!d.shift_searched && d.differing == 2);
    }
}
